/** Where the entry points and the type-checked files are. @module */

/** The module files listed in deno.json `exports`. */
export async function entryPoints(): Promise<string[]> {
  const config = JSON.parse(await Deno.readTextFile("deno.json")) as {
    exports: Record<string, string>;
  };
  return Object.values(config.exports);
}

/**
 * TypeScript files Deno type-checks: entries, src, plugin, scripts. Tests, and scripts that
 * import the `ai` package (whose types overflow Deno's checker), go through tsc instead.
 */
export async function typeCheckedFiles(): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(".")) {
    if (entry.isFile && entry.name.endsWith(".ts")) files.push(entry.name);
  }
  for (const dir of ["src", "plugin", "scripts"]) {
    files.push(...await walkTs(dir));
  }
  const checked: string[] = [];
  for (const file of files) {
    if (!/from "ai"/.test(await Deno.readTextFile(file))) checked.push(file);
  }
  return checked.sort();
}

async function walkTs(dir: string): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const entry of Deno.readDir(dir)) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory) out.push(...await walkTs(path));
      else if (entry.name.endsWith(".ts")) out.push(path);
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return out;
}
