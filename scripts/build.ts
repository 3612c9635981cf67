/**
 * Builds the npm package into `npm/`: compiles every deno.json entry point with tsc
 * (`rewriteRelativeImportExtensions` turns `.ts` imports into `.js`), writes
 * `npm/package.json` with one export per entry and the runtime dependencies of the
 * root package.json, and copies README.md and LICENSE.
 *
 * Usage: `deno run -A scripts/build.ts`
 *
 * @module
 */
import { runInherited } from "./lib/test-files.ts";
import { npmManifest } from "./lib/npm-manifest.ts";

const OUT = "npm";
await Deno.remove(OUT, { recursive: true }).catch(() => {});

const deno = JSON.parse(await Deno.readTextFile("deno.json")) as {
  exports: Record<string, string>;
};
const root = JSON.parse(await Deno.readTextFile("package.json")) as Record<string, unknown>;
/** Files that no entry imports but the package must ship (the fake cursor-agent's program). */
const EXTRA_FILES = ["./src/testing/adapters/fake-cursor-agent/main.ts"];
const entries = [...Object.values(deno.exports), ...EXTRA_FILES];
const temporaryConfig = ".build/tsconfig.npm.json";
await Deno.mkdir(".build", { recursive: true });
await Deno.writeTextFile(
  temporaryConfig,
  JSON.stringify({
    extends: "../tsconfig.build.json",
    files: entries.map((entry) => `../${entry}`),
  }),
);
const code = await runInherited("tsc", ["-p", temporaryConfig], 10 * 60 * 1000);
if (code !== 0) {
  console.error("tsc failed; the npm package was not built");
  Deno.exit(1);
}

await Deno.writeTextFile(
  `${OUT}/package.json`,
  JSON.stringify(npmManifest(root, deno.exports), null, 2) + "\n",
);
for (const file of ["README.md", "LICENSE"]) await Deno.copyFile(file, `${OUT}/${file}`);
console.log(`Built ${OUT}/ with entries: ${Object.keys(deno.exports).join(", ")}`);
