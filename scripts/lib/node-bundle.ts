/** Bundles TypeScript test files for Node's test runner with esbuild. @module */
import { runCaptured } from "./test-files.ts";

/**
 * Bundles each file (npm packages stay external) into `outDir`, keeping the folder layout.
 *
 * @param files Repository-relative `.ts` files.
 * @param outDir Where the `.mjs` bundles go (emptied first).
 * @returns The bundled paths, in the order of `files`, or `undefined` when esbuild failed.
 */
export async function bundleForNode(
  files: string[],
  outDir: string,
): Promise<string[] | undefined> {
  await Deno.remove(outDir, { recursive: true }).catch(() => {});
  const bundle = await runCaptured("esbuild", [
    ...files,
    "--bundle",
    "--platform=node",
    "--format=esm",
    "--packages=external",
    "--target=node20",
    "--log-level=warning",
    `--outdir=${outDir}`,
    "--outbase=.",
    "--out-extension:.js=.mjs",
  ], 5 * 60 * 1000);
  if (bundle.code !== 0) return undefined;
  return files.map((file) => `${outDir}/${file.replace(/\.ts$/, ".mjs")}`);
}
