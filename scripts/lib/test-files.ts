/** Shared helpers for the test runner scripts. @module */

/** Counts from one runtime's test run. */
export interface Tally {
  runtime: string;
  passed: number;
  failed: number;
  skipped: number;
  /** The runner itself failed (crash, timeout) apart from counted test failures. */
  crashed: boolean;
}

/** Collects `*.test.ts` files below the given files or folders, sorted. */
export async function collectTestFiles(roots: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const root of roots) {
    const info = await Deno.stat(root);
    if (info.isFile) {
      found.push(root);
      continue;
    }
    for await (const path of walk(root)) {
      if (path.endsWith(".test.ts")) found.push(path);
    }
  }
  return found.sort();
}

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.isFile) yield path;
  }
}

/** Runs a command with inherited output under a hard timeout; returns its exit code. */
export async function runInherited(
  command: string,
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<number> {
  const child = new Deno.Command(command, {
    args,
    env,
    stdout: "inherit",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const timer = setTimeout(() => {
    console.error(`${command} exceeded ${timeoutMs} ms; killing it`);
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, timeoutMs);
  const status = await child.status;
  clearTimeout(timer);
  return status.code;
}

/** Runs a command under a hard timeout, echoing its output and returning the text too. */
export async function runCaptured(
  command: string,
  args: string[],
  timeoutMs: number,
  env: Record<string, string> = {},
): Promise<{ code: number; output: string }> {
  const child = new Deno.Command(command, {
    args,
    env,
    stdout: "piped",
    stderr: "piped",
    stdin: "null",
  }).spawn();
  const timer = setTimeout(() => {
    console.error(`${command} exceeded ${timeoutMs} ms; killing it`);
    try {
      child.kill("SIGKILL");
    } catch {
      // already gone
    }
  }, timeoutMs);
  const decoder = new TextDecoder();
  let output = "";
  const pump = async (stream: ReadableStream<Uint8Array>, sink: typeof Deno.stdout) => {
    for await (const chunk of stream) {
      output += decoder.decode(chunk, { stream: true });
      await sink.write(chunk);
    }
  };
  await Promise.all([pump(child.stdout, Deno.stdout), pump(child.stderr, Deno.stderr)]);
  const status = await child.status;
  clearTimeout(timer);
  return { code: status.code, output };
}

/** Twenty minutes: a runtime's whole suite must finish well inside CI's budget. */
export const SUITE_TIMEOUT_MS = 20 * 60 * 1000;
