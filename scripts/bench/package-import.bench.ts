/**
 * Cold import of the built npm package, bundled (what `npm run build` ships) side by side
 * with the same build left as one file per module (`--no-bundle`), on Node and Bun: each
 * sample is a fresh process timing one dynamic `import()` of the package root (`node.js`)
 * or the OpenCode plugin entry (`plugin/mod.js`). Median of several alternating samples.
 *
 * Target: bundled ÷ unbundled ≤ 0.6 for both entries on both runtimes.
 *
 * Prints `package-import: key=value` lines.
 *
 * @module
 */
import { runCaptured } from "../lib/test-files.ts";

const SAMPLES = 9;
const BUILDS = { bundled: ".build/bench-npm-bundled", unbundled: ".build/bench-npm-unbundled" };
const ENTRIES = { root: "node.js", plugin: "plugin/mod.js" };
const RUNTIMES = ["node", "bun"] as const;

async function build(out: string, bundle: boolean): Promise<void> {
  const args = ["run", "-A", "scripts/build.ts", "--out", out, ...(bundle ? [] : ["--no-bundle"])];
  const { code } = await runCaptured("deno", args, 5 * 60 * 1000);
  if (code !== 0) throw new Error(`Building ${out} failed`);
}

/** One fresh process importing `file`; the import's duration in ms. */
async function importOnce(runtime: (typeof RUNTIMES)[number], file: string): Promise<number> {
  const url = new URL(file, `file://${Deno.cwd()}/`).href;
  const script = `const t = performance.now(); await import(${
    JSON.stringify(url)
  }); console.log("import_ms=" + (performance.now() - t));`;
  const args = runtime === "node" ? ["--input-type=module", "-e", script] : ["-e", script];
  const child = await new Deno.Command(runtime, { args, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(child.stdout);
  const match = text.match(/import_ms=([\d.]+)/);
  if (!child.success || !match?.[1]) {
    throw new Error(
      `${runtime} could not import ${file}: ${new TextDecoder().decode(child.stderr)}`,
    );
  }
  return Number(match[1]);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const timer = setTimeout(() => {
  console.error("package-import: aborted after 8 minutes");
  Deno.exit(1);
}, 8 * 60 * 1000);
await build(BUILDS.bundled, true);
await build(BUILDS.unbundled, false);
for (const runtime of RUNTIMES) {
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const samples: Record<keyof typeof BUILDS, number[]> = { bundled: [], unbundled: [] };
    for (let i = 0; i < SAMPLES; i++) {
      samples.unbundled.push(await importOnce(runtime, `${BUILDS.unbundled}/${entry}`));
      samples.bundled.push(await importOnce(runtime, `${BUILDS.bundled}/${entry}`));
    }
    const bundled = median(samples.bundled);
    const unbundled = median(samples.unbundled);
    console.log(
      `package-import: runtime=${runtime} entry=${name} bundled_ms=${
        bundled.toFixed(1)
      } unbundled_ms=${unbundled.toFixed(1)} ratio=${(bundled / unbundled).toFixed(2)} target=0.6`,
    );
  }
}
clearTimeout(timer);
