/**
 * Installs the fake `cursor-agent` into a directory as executables named
 * `cursor-agent` and `agent` (plus `.cmd` shims on Windows), so a test can put the
 * directory on PATH exactly as the real installer's `~/.local/bin` would be.
 *
 * Each executable is a two-line wrapper, `#!/bin/sh` and `exec <runtime> <args>
 * <main> "$@"`. The runtime is chosen to run the fake's entry file:
 *
 * - from the source tree the entry is `main.ts`: the current runtime runs it when it
 *   is Deno or Bun; under Node (which cannot run TypeScript) the repository's
 *   `node_modules/.bin/deno` (or `bun`) is used, else `deno` from PATH;
 * - from the built npm package the entry is the compiled `main.js`: Node runs it
 *   (`process.execPath` under Node, else `node` from PATH).
 *
 * When the installer itself was bundled into a test file, its own location says
 * nothing; it then looks for `src/testing/adapters/fake-cursor-agent/main.ts` under
 * the current directory. `options.entry` and `options.runtime` override both choices.
 *
 * @module
 */
import { existsSync } from "node:fs";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

/** The program (and its leading arguments) that runs the entry file. */
export interface FakeRuntime {
  /** The executable (deno, node or bun). */
  readonly command: string;
  /** Arguments before the entry file (e.g. `run -A` for Deno). */
  readonly args: readonly string[];
}

/** Options of {@link installFakeCursorAgent}. */
export interface InstallFakeCursorAgentOptions {
  /** The fake's entry file (`main.ts` or a compiled `main.js`). */
  readonly entry?: string;
  /** The runtime to run it with. */
  readonly runtime?: FakeRuntime;
  /** Executable names. Default `cursor-agent` and `agent`. */
  readonly names?: readonly string[];
}

/** What was installed. */
export interface InstalledFakeCursorAgent {
  /** The directory to put on PATH. */
  readonly directory: string;
  /** The full path of the `cursor-agent` executable (the `.cmd` shim on Windows). */
  readonly binaryPath: string;
  /** The entry file the wrappers run. */
  readonly entry: string;
  /** The runtime the wrappers run it with. */
  readonly runtime: FakeRuntime;
}

const SOURCE_ENTRY = "src/testing/adapters/fake-cursor-agent/main.ts";

/**
 * Writes the wrapper executables.
 *
 * @param directory Where to put them (created when missing).
 * @param options Entry, runtime and names overrides.
 * @returns Paths and the chosen runtime.
 * @throws {Error} When no entry file or no suitable runtime can be found.
 *
 * @example
 * ```ts ignore
 * import { installFakeCursorAgent } from "./install.ts";
 *
 * const fake = await installFakeCursorAgent("/tmp/fake-bin");
 * // Put fake.directory first on PATH, or pass fake.binaryPath as the binary.
 * ```
 */
export async function installFakeCursorAgent(
  directory: string,
  options: InstallFakeCursorAgentOptions = {},
): Promise<InstalledFakeCursorAgent> {
  const entry = resolve(options.entry ?? findEntry());
  const runtime = options.runtime ?? chooseRuntime(entry);
  await mkdir(directory, { recursive: true });
  const names = options.names ?? ["cursor-agent", "agent"];
  const windows = process.platform === "win32";
  for (const name of names) {
    const path = join(directory, name);
    await writeFile(path, shellWrapper(runtime, entry));
    await chmod(path, 0o755);
    if (windows) await writeFile(`${path}.cmd`, cmdWrapper(runtime, entry));
  }
  const first = join(directory, names[0] ?? "cursor-agent");
  return { directory, binaryPath: windows ? `${first}.cmd` : first, entry, runtime };
}

function findEntry(): string {
  const candidates: string[] = [];
  try {
    const here = dirname(fileURLToPath(import.meta.url));
    candidates.push(join(here, "main.ts"), join(here, "main.js"));
  } catch {
    // Not a file URL (bundled); fall through to the working directory.
  }
  candidates.push(join(process.cwd(), SOURCE_ENTRY));
  const found = candidates.find((candidate) => existsSync(candidate));
  if (found === undefined) {
    throw new Error(
      `Cannot install the fake cursor-agent: no entry file among ${JSON.stringify(candidates)}`,
    );
  }
  return found;
}

function chooseRuntime(entry: string): FakeRuntime {
  const deno = (command: string): FakeRuntime => ({
    command,
    args: ["run", "-A", "--no-config", "--no-lock", "--quiet"],
  });
  // Read through globalThis so the file also compiles where Deno's types are absent (npm build).
  const denoRuntime = (globalThis as { Deno?: { execPath(): string } }).Deno;
  const isBun = "Bun" in globalThis;
  // Deno and Bun run both .ts and .js; Node runs the compiled .js.
  if (denoRuntime !== undefined) return deno(denoRuntime.execPath());
  if (isBun || !entry.endsWith(".ts")) return { command: process.execPath, args: [] };
  const local = findUp(dirname(entry), ["node_modules/.bin/deno", "node_modules/.bin/bun"]) ??
    findUp(process.cwd(), ["node_modules/.bin/deno", "node_modules/.bin/bun"]);
  if (local === undefined) return deno("deno");
  return local.endsWith("deno") ? deno(local) : { command: local, args: [] };
}

function findUp(start: string, relatives: readonly string[]): string | undefined {
  for (let current = start;;) {
    for (const relative of relatives) {
      const candidate = join(current, relative);
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function shellWrapper(runtime: FakeRuntime, entry: string): string {
  const words = [runtime.command, ...runtime.args, entry].map(shellQuote).join(" ");
  return `#!/bin/sh\nDENO_NO_UPDATE_CHECK=1 exec ${words} "$@"\n`;
}

function cmdWrapper(runtime: FakeRuntime, entry: string): string {
  const words = [runtime.command, ...runtime.args, entry].map((word) => `"${word}"`).join(" ");
  return `@echo off\r\nset DENO_NO_UPDATE_CHECK=1\r\n${words} %*\r\n`;
}
