/**
 * The built npm package the suite loads the way users do: `file://` URLs to
 * `npm/plugin/mod.js` (the plugin) and `npm/node.js` (the provider). Builds it first
 * when it is missing or older than the sources.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";

/** File URLs of the built entries. */
export interface BuiltPackage {
  readonly plugin: string;
  readonly pluginV2: string;
  readonly provider: string;
}

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith(".ts")) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function mtime(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Returns the built package, running `npm run build` (5 minutes at most) when needed.
 *
 * @returns File URLs of the plugin and provider entries.
 */
export function builtPackage(): BuiltPackage {
  const root = process.cwd();
  const out = join(root, "npm");
  const built = Math.min(mtime(join(out, "package.json")), mtime(join(out, "plugin", "mod.js")));
  const sources = Math.max(
    newestSource(join(root, "src")),
    newestSource(join(root, "plugin")),
    mtime(join(root, "node.ts")),
    mtime(join(root, "mod.ts")),
    mtime(join(root, "deno.json")),
  );
  if (built === 0 || built < sources) {
    const result = spawnSync("npm", ["run", "build"], {
      cwd: root,
      stdio: "inherit",
      timeout: 5 * 60_000,
    });
    if (result.status !== 0) throw new Error("npm run build failed; the suite needs npm/");
  }
  return {
    plugin: pathToFileURL(join(out, "plugin", "mod.js")).href,
    pluginV2: pathToFileURL(join(out, "plugin", "v2.js")).href,
    provider: pathToFileURL(join(out, "node.js")).href,
  };
}
