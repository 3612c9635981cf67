/**
 * Builds the npm package into `npm/`: compiles every deno.json entry point with tsc
 * (`rewriteRelativeImportExtensions` turns `.ts` imports into `.js`; the `.d.ts` files
 * come from here), points the compiled generated protocol modules at descriptors built on
 * first use (`src/protocol/lazy-descriptors.ts`, so importing the package builds none; in
 * both layouts; shipped as JSON rather than base64, ADR 201), makes messages name the npm
 * package rather than the JSR one (`scripts/lib/registry-names.ts`), then bundles the product
 * entries (package root, Node entry, plugin
 * entries) with esbuild over the compiled files: one module per entry, code two entries
 * share in shared chunks (so `CursorError` stays one class), npm dependencies external.
 * `./testing` stays tsc output, a separate entry the product entries never load.
 * Writes `npm/package.json` with one export per entry and the runtime dependencies of
 * the root package.json, and copies README.md and LICENSE.
 *
 * Usage: `deno run -A scripts/build.ts [--out DIR] [--no-bundle] [--eager-descriptors]`
 * (the two flags build the layouts the import benchmark compares against).
 *
 * @module
 */
import { dirname, relative } from "node:path";
import { parseArgs } from "node:util";
import { runInherited } from "./lib/test-files.ts";
import { npmManifest } from "./lib/npm-manifest.ts";
import { deferDescriptorImports } from "./lib/lazy-descriptor-imports.ts";
import { PACKAGE_NAME_MODULE, useNpmNames } from "./lib/registry-names.ts";
import { descriptorJson, preDecodeFileDescs } from "./lib/pre-decoded-descriptors.ts";
import type { DescFile } from "@bufbuild/protobuf";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    out: { type: "string", default: "npm" },
    "no-bundle": { type: "boolean", default: false },
    "eager-descriptors": { type: "boolean", default: false },
  },
});
const OUT = values.out.replace(/\/+$/, "");
await Deno.remove(OUT, { recursive: true }).catch(() => {});

const deno = JSON.parse(await Deno.readTextFile("deno.json")) as {
  exports: Record<string, string>;
};
const root = JSON.parse(await Deno.readTextFile("package.json")) as Record<string, unknown>;
/**
 * Files that no entry imports but the package must ship: the fake cursor-agent's program,
 * the package's executable (`npx ai-sdk-provider-cursor doctor`) and the lazy descriptor
 * functions the generated modules are pointed at after compiling.
 */
const LAZY_DESCRIPTORS = "./src/protocol/lazy-descriptors.ts";
const EXTRA_FILES = [
  "./src/testing/adapters/fake-cursor-agent/main.ts",
  "./src/adapters/node/commands/package-bin.ts",
  LAZY_DESCRIPTORS,
];
/** Extra files bundled like the product entries (the executable loads no emulator). */
const BUNDLED_EXTRA_FILES = ["./src/adapters/node/commands/package-bin.ts"];
const entries = [...Object.values(deno.exports), ...EXTRA_FILES];
const temporaryConfig = ".build/tsconfig.npm.json";
await Deno.mkdir(".build", { recursive: true });
await Deno.writeTextFile(
  temporaryConfig,
  JSON.stringify({
    extends: "../tsconfig.build.json",
    compilerOptions: { outDir: `../${OUT}` },
    files: entries.map((entry) => `../${entry}`),
  }),
);
const started = Date.now();
progress(`compiling ${entries.length} entry points with tsc (the longest step, about 30 s)`);
const code = await runInherited("tsc", ["-p", temporaryConfig], 10 * 60 * 1000);
if (code !== 0) {
  console.error("tsc failed; the npm package was not built");
  Deno.exit(1);
}

progress("naming the npm package in messages (src/core/package-name.js)");
const namesModule = `${OUT}/${PACKAGE_NAME_MODULE}`;
await Deno.writeTextFile(namesModule, useNpmNames(await Deno.readTextFile(namesModule)));

if (!values["eager-descriptors"]) {
  progress("pointing the generated protocol modules at descriptors built on first use");
  await deferDescriptors();
}

if (!values["no-bundle"]) {
  progress("bundling the package root, the Node entry, the plugin entries and the executable");
  await bundleProductEntries();
}
progress("writing package.json, README.md and LICENSE");

await Deno.writeTextFile(
  `${OUT}/package.json`,
  JSON.stringify(npmManifest(root, deno.exports), null, 2) + "\n",
);
for (const file of ["README.md", "LICENSE"]) await Deno.copyFile(file, `${OUT}/${file}`);
console.log(
  `Built ${OUT}/ with entries: ${Object.keys(deno.exports).join(", ")}${
    values["no-bundle"] ? " (unbundled)" : ""
  } in ${((Date.now() - started) / 1000).toFixed(1)} s`,
);

/** One progress line on stderr, so a long build is never silent. */
function progress(step: string): void {
  console.error(`build: ${step}…`);
}

/**
 * Points every compiled generated module (`src/gen/…_pb.js`) at the lazy descriptors, its
 * file descriptors pre-decoded as JSON.
 */
async function deferDescriptors(): Promise<void> {
  const lazyModule = `${OUT}/${LAZY_DESCRIPTORS.slice(2).replace(/\.ts$/, ".js")}`;
  let rewritten = 0;
  for await (const file of walk(`${OUT}/src/gen`)) {
    if (!file.endsWith("_pb.js")) continue;
    const source = await Deno.readTextFile(file);
    const deferred = deferDescriptorImports(source, relativeSpecifier(file, lazyModule));
    if (deferred === source) continue;
    // The same module in the sources, whose descriptors are built at import (ADR 201).
    const original = await import(
      new URL(`../${file.slice(OUT.length + 1).replace(/\.js$/, ".ts")}`, import.meta.url).href
    ) as Record<string, DescFile>;
    const next = preDecodeFileDescs(deferred, (name) => {
      const described = original[name];
      if (described === undefined) throw new Error(`${file} exports no ${name} in the sources`);
      return descriptorJson(described);
    });
    await Deno.writeTextFile(file, next);
    rewritten++;
  }
  if (rewritten === 0) {
    console.error(`No generated module under ${OUT}/src/gen builds descriptors; the build changed`);
    Deno.exit(1);
  }
}

/** The `./`- or `../`-relative import specifier of the module `to` from the module `from`. */
function relativeSpecifier(from: string, to: string): string {
  const path = relative(dirname(from), to);
  return path.startsWith(".") ? path : `./${path}`;
}

/** Re-bundles the compiled product entries in place (not `./testing`). */
async function bundleProductEntries(): Promise<void> {
  const product = [...new Set([...Object.values(deno.exports), ...BUNDLED_EXTRA_FILES])]
    .filter((entry) => !entry.startsWith("./src/testing/"))
    .map((entry) => `${OUT}/${entry.replace(/^\.\//, "").replace(/\.ts$/, ".js")}`);
  const staging = `${OUT}.bundle`;
  await Deno.remove(staging, { recursive: true }).catch(() => {});
  const bundled = await runInherited("esbuild", [
    ...product,
    "--bundle",
    "--splitting",
    "--format=esm",
    "--platform=node",
    "--target=es2022",
    "--log-level=warning",
    `--outbase=${OUT}`,
    `--outdir=${staging}`,
    "--chunk-names=chunks/[name]-[hash]",
    // Optional peers (a store entry's client) are the app's own install, never bundled.
    ...Object.keys((root.peerDependencies ?? {}) as Record<string, string>).map((name) =>
      `--external:${name}`
    ),
  ], 5 * 60 * 1000);
  if (bundled !== 0) {
    console.error("esbuild failed; the npm package was not built");
    Deno.exit(1);
  }
  for await (const file of walk(staging)) {
    const target = `${OUT}/${file.slice(staging.length + 1)}`;
    await Deno.mkdir(target.replace(/\/[^/]+$/, ""), { recursive: true });
    await Deno.rename(file, target);
  }
  await Deno.remove(staging, { recursive: true });
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else yield path;
  }
}
