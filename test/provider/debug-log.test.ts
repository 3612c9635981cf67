import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { type ModelMessage, streamText } from "ai";
import { createFileDebugLogger } from "../../src/adapters/node/files/debug-log-file.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

/** The runbook's analysis recipe, unchanged (selecting one session by its key). */
const RECIPE = `rg 'cache diagnosis: sessionKey=ses_EXAMPLE(?: |$)' "$LOG" |
awk '
  {
    input = read = ratio = 0
    for (i = 1; i <= NF; i++) {
      split($i, pair, "=")
      if (pair[1] == "rawInput") input = pair[2] + 0
      if (pair[1] == "rawCacheRead") read = pair[2] + 0
      if (pair[1] == "rawReadRatio") ratio = pair[2] + 0
    }
    totalInput += input
    totalRead += read
    ratioSum += ratio
    turns += 1
  }
  END {
    printf "turns=%d weightedReadRatio=%.1f%% meanRunRatio=%.1f%%\\n", \\
      turns, totalInput ? 100 * totalRead / totalInput : 0, \\
      turns ? ratioSum / turns : 0
  }
'`;

const TIMELINE =
  `rg 'conversation persistence:|conversation reset:|outbound Run:|hash (systemPrompt|requestContext|checkpoint)|checkpoint: stored|turn_ended raw wire fields:|finish: reason=|turn usage validation:|cache diagnosis:|Run interrupted|resuming .* checkpoint|rebasing fresh Run' "$LOG"`;

/**
 * The runbook's commands use ripgrep; where it is not installed (CI installs it), the same
 * patterns run through `grep -P`, which reads them identically.
 */
function withSearchTool(script: string): string {
  const hasRipgrep = spawnSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).status === 0;
  return hasRipgrep ? script : script.replace(/^rg /, "grep -P ");
}

describe("debug log as the runbook reads it", () => {
  it("records continuity, hashes, usage validation and cache diagnosis, and the runbook recipe works unchanged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-log-"));
    const log = join(dir, "cursor-cache.log");
    try {
      await withEmulator({}, async (emulator) => {
        const debug = createFileDebugLogger({
          env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: log },
          announce: () => {},
        });
        const cursor = emulatorProvider(emulator, "sse", { debug });
        const messages: ModelMessage[] = [];
        for (let turn = 1; turn <= 3; turn++) {
          messages.push({ role: "user", content: `Turn ${turn}` });
          const result = streamText({
            model: cursor("gpt-5"),
            system: "Be brief.",
            messages,
            providerOptions: { cursor: { sessionId: "ses_EXAMPLE" } },
          });
          await result.text;
          messages.push(...(await result.response).messages);
        }
        // A host history that does not extend the conversation reseeds it, with the reason logged.
        await streamText({
          model: cursor("gpt-5"),
          system: "Be brief.",
          prompt: "A different opener",
          providerOptions: { cursor: { sessionId: "ses_EXAMPLE" } },
        }).text;
      });
      const text = readFileSync(log, "utf8");
      assert.doesNotMatch(text, /crsr_|Bearer|eyJ/, "no credentials in the log");
      const diagnoses = text.split("\n").filter((l) =>
        l.includes("cache diagnosis: sessionKey=ses_EXAMPLE ")
      );
      assert.equal(diagnoses.length, 4);
      assert.match(
        diagnoses[0] ?? "",
        /continuity=cold coldReason=no-checkpoint requestContext=built/,
      );
      assert.match(diagnoses[1] ?? "", /continuity=warm requestContext=reused/);
      assert.match(diagnoses[2] ?? "", /perModelCallCache=unavailable/);
      assert.match(diagnoses[3] ?? "", /continuity=cold coldReason=foreign-history:edited/);
      const hashes = diagnoses.map((l) => /requestContextHash=(\w+)/.exec(l)?.[1]);
      assert.equal(hashes[1], hashes[0], "the warm turn reused the request context bytes");
      assert.match(
        text,
        /conversation reset: reason=foreign-history:edited sessionKey=ses_EXAMPLE/,
      );
      assert.match(
        text,
        /turn usage validation: sessionKey=ses_EXAMPLE status=ok source=checkpoint-current-run/,
      );
      assert.match(
        text,
        /turn_ended raw wire fields: f1:in=\d+ f2:out=\d+ f3:cr=\d+ f4:wt=\d+ f5:rs0?=\d+/,
      );

      const timeline = spawnSync("sh", ["-c", withSearchTool(TIMELINE)], {
        env: { ...process.env, LOG: log },
        encoding: "utf8",
      });
      assert.equal(timeline.status, 0, timeline.stderr);
      for (
        const kind of [
          "outbound Run:",
          "hash systemPrompt",
          "hash requestContext",
          "hash checkpoint",
          "checkpoint: stored",
          "finish: reason=stop",
          "turn usage validation:",
          "cache diagnosis:",
        ]
      ) {
        assert.ok(timeline.stdout.includes(kind), `timeline has ${kind}`);
      }
      const summary = spawnSync("sh", ["-c", withSearchTool(RECIPE)], {
        env: { ...process.env, LOG: log },
        encoding: "utf8",
      });
      assert.equal(summary.status, 0, summary.stderr);
      const match = /^turns=4 weightedReadRatio=(\d+\.\d)% meanRunRatio=(\d+\.\d)%$/.exec(
        summary.stdout.trim(),
      );
      assert.ok(match, `recipe output: ${summary.stdout}`);
      assert.ok(Number(match[1]) > 0, "warm turns read from the cache");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
