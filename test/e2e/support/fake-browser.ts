/**
 * A stand-in browser for the login test: an executable script, named by `BROWSER`, that
 * "visits" the URL it is given (an HTTP GET, as a person opening the page would), so the
 * emulator registers the login and approves it.
 *
 * @module
 */
import { chmod, writeFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * Writes the script into `dir`.
 *
 * @param dir A folder of the sandbox.
 * @returns The script's path (for `BROWSER`) and the file it records visited URLs in.
 */
export async function writeFakeBrowser(dir: string): Promise<{ command: string; visits: string }> {
  const command = join(dir, "fake-browser");
  const visits = join(dir, "fake-browser-visits.txt");
  const script = [
    "#!/bin/sh",
    `printf '%s\\n' "$1" >> '${visits}'`,
    `exec node -e 'fetch(process.argv[1]).then((r) => r.text()).catch(() => process.exit(1))' "$1"`,
    "",
  ].join("\n");
  await writeFile(command, script);
  await chmod(command, 0o755);
  return { command, visits };
}
