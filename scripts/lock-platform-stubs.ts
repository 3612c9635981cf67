/**
 * Adds lock-file entries for platform packages the npm registry mirror here does not
 * serve (OpenCode's darwin/windows/arm/musl binaries). Without them `npm ci` refuses
 * the lock as out of sync; with them npm skips those packages by os/cpu/libc as usual.
 * Run after `npm install` changes package-lock.json: `deno run -A scripts/lock-platform-stubs.ts`.
 *
 * @module
 */
type LockEntry = {
  version?: string;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
};
type Lock = { packages: Record<string, LockEntry>; [key: string]: unknown };

const OS_NAMES: Record<string, string> = { darwin: "darwin", linux: "linux", windows: "win32" };

const lock = JSON.parse(await Deno.readTextFile("package-lock.json")) as Lock;
const added: string[] = [];
for (const [key, entry] of Object.entries(lock.packages)) {
  if (!key.endsWith("node_modules/opencode-ai")) continue;
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const target = `node_modules/${name}`;
    if (lock.packages[target]) continue;
    const [, os = "", cpu = ""] = name.split("-");
    lock.packages[target] = {
      version,
      dev: true,
      optional: true,
      os: [OS_NAMES[os] ?? os],
      cpu: [cpu],
      ...(name.includes("musl") ? { libc: ["musl"] } : {}),
    };
    added.push(name);
  }
}
const sorted = Object.fromEntries(
  Object.entries(lock.packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
);
await Deno.writeTextFile(
  "package-lock.json",
  JSON.stringify({ ...lock, packages: sorted }, null, 2) + "\n",
);
console.log(
  added.length ? `Added lock entries: ${added.join(", ")}` : "Lock file already complete",
);
