/**
 * Cold import of the built npm package, bundled (what `npm run build` ships) side by side
 * with the same build left as one file per module (`--no-bundle`), on Node and Bun: each
 * sample is a fresh process timing one dynamic `import()` of the package root (`node.js`)
 * or the OpenCode plugin entry (`plugin/mod.js`). Median of several alternating samples.
 *
 * Each sample reports the import's wall-clock time and the CPU time the process spent on it
 * (`process.cpuUsage()`, user + system, all threads). On a machine shared with other work the
 * wall clock mostly measures waiting for a core; the CPU time is the import's own cost and
 * stays comparable between runs. Both builds defer descriptor construction the same way
 * (scripts/build.ts), so the ratio is what bundling alone saves. A third build, bundled with
 * the descriptors built at import (`--eager-descriptors`, the layout before deferring), shows
 * what deferring saves: `eager_ms` and `eager_cpu_ms`.
 *
 * Target: bundled ÷ unbundled ≤ 0.6 for both entries on both runtimes.
 *
 * Prints `package-import: key=value` lines.
 *
 * @module
 */
import { runCaptured } from "../lib/test-files.ts";

const SAMPLES = 11;
const BUILDS = {
  bundled: ".build/bench-npm-bundled",
  unbundled: ".build/bench-npm-unbundled",
  eager: ".build/bench-npm-eager",
};
const ENTRIES = { root: "node.js", plugin: "plugin/mod.js" };
const RUNTIMES = ["node", "bun"] as const;

async function build(out: string, flags: string[]): Promise<void> {
  const args = ["run", "-A", "scripts/build.ts", "--out", out, ...flags];
  const { code } = await runCaptured("deno", args, 5 * 60 * 1000);
  if (code !== 0) throw new Error(`Building ${out} failed`);
}

/** What one import cost: wall-clock and CPU milliseconds. */
interface ImportCost {
  readonly wall: number;
  readonly cpu: number;
}

/** One fresh process importing `file`; what the import cost. */
async function importOnce(runtime: (typeof RUNTIMES)[number], file: string): Promise<ImportCost> {
  const url = new URL(file, `file://${Deno.cwd()}/`).href;
  const script = [
    "const c = process.cpuUsage(); const t = performance.now();",
    `await import(${JSON.stringify(url)});`,
    "const wall = performance.now() - t; const used = process.cpuUsage(c);",
    'console.log("import_ms=" + wall + " cpu_ms=" + (used.user + used.system) / 1000);',
  ].join(" ");
  const args = runtime === "node" ? ["--input-type=module", "-e", script] : ["-e", script];
  const child = await new Deno.Command(runtime, { args, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(child.stdout);
  const match = text.match(/import_ms=([\d.]+) cpu_ms=([\d.]+)/);
  if (!child.success || !match?.[1] || !match[2]) {
    throw new Error(
      `${runtime} could not import ${file}: ${new TextDecoder().decode(child.stderr)}`,
    );
  }
  return { wall: Number(match[1]), cpu: Number(match[2]) };
}

/** The median wall-clock and the median CPU time of the samples. */
function medianCost(costs: readonly ImportCost[]): ImportCost {
  return {
    wall: median(costs.map((cost) => cost.wall)),
    cpu: median(costs.map((cost) => cost.cpu)),
  };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

const timer = setTimeout(() => {
  console.error("package-import: aborted after 9.5 minutes");
  Deno.exit(1);
}, 9.5 * 60 * 1000);
await build(BUILDS.bundled, []);
await build(BUILDS.unbundled, ["--no-bundle"]);
await build(BUILDS.eager, ["--eager-descriptors"]);
for (const runtime of RUNTIMES) {
  for (const [name, entry] of Object.entries(ENTRIES)) {
    const samples: Record<keyof typeof BUILDS, ImportCost[]> = {
      bundled: [],
      unbundled: [],
      eager: [],
    };
    for (let i = 0; i < SAMPLES; i++) {
      for (const layout of ["unbundled", "bundled", "eager"] as const) {
        samples[layout].push(await importOnce(runtime, `${BUILDS[layout]}/${entry}`));
      }
    }
    const bundled = medianCost(samples.bundled);
    const unbundled = medianCost(samples.unbundled);
    const eager = medianCost(samples.eager);
    console.log(
      `package-import: runtime=${runtime} entry=${name}` +
        ` bundled_ms=${bundled.wall.toFixed(1)} unbundled_ms=${unbundled.wall.toFixed(1)}` +
        ` ratio=${(bundled.wall / unbundled.wall).toFixed(2)}` +
        ` bundled_cpu_ms=${bundled.cpu.toFixed(1)} unbundled_cpu_ms=${unbundled.cpu.toFixed(1)}` +
        ` cpu_ratio=${(bundled.cpu / unbundled.cpu).toFixed(2)} target=0.6` +
        ` eager_ms=${eager.wall.toFixed(1)} eager_cpu_ms=${eager.cpu.toFixed(1)}`,
    );
  }
}
clearTimeout(timer);
