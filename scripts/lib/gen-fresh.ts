/** Compares `src/gen` with a fresh `buf generate` into a temporary folder. @module */
import { runInherited } from "./test-files.ts";

/** Whether `src/gen` matches what `buf generate` produces from `proto/` now. */
export async function generatedCodeIsFresh(): Promise<boolean> {
  const temp = await Deno.makeTempDir({ prefix: "gen-check-" });
  try {
    const code = await runInherited("buf", ["generate", "-o", temp], 5 * 60 * 1000);
    if (code !== 0) return false;
    const fresh = await readTree(`${temp}/src/gen`);
    const committed = await readTree("src/gen");
    const names = new Set([...fresh.keys(), ...committed.keys()]);
    let same = true;
    for (const name of names) {
      if (fresh.get(name) !== committed.get(name)) {
        console.error(`differs: src/gen/${name}`);
        same = false;
      }
    }
    return same;
  } finally {
    await Deno.remove(temp, { recursive: true });
  }
}

async function readTree(root: string, prefix = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  try {
    for await (const entry of Deno.readDir(`${root}/${prefix}`)) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory) {
        for (const [k, v] of await readTree(root, relative)) out.set(k, v);
      } else out.set(relative, await Deno.readTextFile(`${root}/${relative}`));
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out;
}
