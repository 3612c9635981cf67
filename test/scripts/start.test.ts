/**
 * `npm start` as a user sees it: the script runs as its own process (under a deadline)
 * against the built-in emulator, and its output is compared after normalising what
 * varies between runs (ports, temporary paths, token counts).
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

interface Outcome {
  readonly code: number | null;
  /** stderr before normalising. */
  readonly rawStderr: string;
  readonly stdout: string;
  readonly stderr: string;
}

function start(args: string[], env: Record<string, string> = {}): Outcome {
  const base: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith("CURSOR_")) base[name] = value;
  }
  const run = spawnSync("deno", ["run", "-A", "scripts/start.ts", ...args], {
    env: { ...base, NO_COLOR: "1", ...env },
    encoding: "utf8",
    timeout: 90_000,
  });
  return {
    code: run.status,
    rawStderr: run.stderr,
    stdout: normalise(run.stdout),
    stderr: normalise(run.stderr),
  };
}

function normalise(text: string): string {
  return text
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT")
    .replace(/\/[^\s"]*cursor-start-[A-Za-z0-9]+/g, "<workspace>")
    .replace(/^(context|usage).*$/gm, (line) => line.replace(/\d+/g, "N"));
}

const USAGE_LINES = [
  "usage (Cursor's counters for this request, summed over its internal model calls): N input " +
  "(N read from and N written to the prompt cache), N output (N of it reasoning)",
  "context: the conversation now fills N tokens of the model's context window (from Cursor's " +
  "checkpoint, in providerMetadata.cursor.contextTokens)",
];

describe("npm start", () => {
  it("--help prints usage, options and examples and exits 0", () => {
    const run = start(["--help"]);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^Usage: npm start -- \[options\] \[prompt\]\n/);
    for (
      const option of ["--model <id>", "--transport sse|http2", "--tools read|write", "--models"]
    ) {
      assert.ok(run.stdout.includes(option), `help lacks ${option}`);
    }
    assert.match(run.stdout, /Examples:\n {2}npm start /);
    assert.match(run.stdout, /docs\/emulator\.md/);
  });

  it("an unknown option is one line that points to --help", () => {
    const run = start(["--bogus"]);
    assert.equal(run.code, 2);
    assert.equal(
      run.stderr,
      'Error: Unknown option --bogus: run "npm start -- --help" for the options\n',
    );
  });

  it("an unknown model is one line listing the emulator's models, no stack", () => {
    const run = start(["--model", "nope"]);
    assert.equal(run.code, 1);
    assert.doesNotMatch(run.stderr, /\n\s+at /);
    assert.equal(
      run.stderr.trimEnd().split("\n").at(-1),
      'Error: Unknown model "nope": use one of: default, claude-4.5-sonnet, claude-4.1-opus, gpt-5, gemini-2.5-pro, composer-1',
    );
  });

  it("sets thinking apart from the answer and explains the usage in words", () => {
    const run = start(["::think pondering\\n::text The answer"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, "The answer\n");
    assert.equal(
      run.stderr,
      [
        "No CURSOR_API_KEY set: using the built-in Cursor emulator at http://127.0.0.1:PORT",
        "model claude-4.5-sonnet, transport sse: RunSSE + BidiAppend at http://127.0.0.1:PORT",
        "",
        "thinking: pondering",
        "",
        ...USAGE_LINES,
        "",
      ].join("\n"),
    );
  });

  it("--transport http2 names the HTTP/2 URL it really uses", () => {
    const run = start(["--transport", "http2", "::text hi"]);
    assert.equal(run.code, 0, run.stderr);
    const banner = run.stderr.split("\n")[1];
    assert.equal(
      banner,
      "model claude-4.5-sonnet, transport http2: HTTP/2 bidi Run at http://127.0.0.1:PORT",
    );
    const [main, http2] = [...run.rawStderr.matchAll(/127\.0\.0\.1:(\d+)/g)].map((m) => m[1]);
    assert.ok(main !== undefined && http2 !== undefined && main !== http2, run.rawStderr);
  });

  it("--tools runs a complete agent turn with real tools in a temporary workspace", () => {
    const run = start(["--tools"]);
    assert.equal(run.code, 0, run.stderr);
    const toolLines = run.stderr.split("\n").filter((line) =>
      /^(tool|tools offered| {2}→)/.test(line)
    );
    assert.deepEqual(toolLines, [
      "tools offered: read, list, grep, glob, inside <workspace>",
      'tool: list {"path":"<workspace>"}',
      "  → README.md ⏎ notes.txt ⏎ src/ (+1 more lines)",
      'tool: read {"filePath":"<workspace>/notes.txt"}',
      "  → Buy milk ⏎ TODO: call the plumber ⏎ Read the emulator docs",
      'tool: grep {"pattern":"TODO","path":"<workspace>"}',
      "  → <workspace>/notes.txt:2:TODO: call the plumber ⏎ <workspace>/src/hello.ts:2:// TODO: say more",
    ]);
    assert.match(run.stdout, /read `notes.txt`: Buy milk/);
  });

  it("says that a tool request is refused because no tools are offered", () => {
    const run = start(["::shell ls"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stderr,
      /note: this run offers no tools, so Cursor's tool requests are refused; add --tools \(read-only\) or --tools=write\n/,
    );
    assert.match(run.stdout, /shell `ls` rejected/);
  });

  it("honours CURSOR_PROVIDER_DEBUG (the debug log is written)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "start-debug-"));
    try {
      const file = join(dir, "debug.log");
      const run = start(["::text hi"], {
        CURSOR_PROVIDER_DEBUG: "1",
        CURSOR_PROVIDER_DEBUG_FILE: file,
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(await readFile(file, "utf8"), /outbound Run:/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
