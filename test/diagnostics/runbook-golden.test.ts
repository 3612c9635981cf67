/**
 * The runbook golden test: scripted sessions write one debug log, every line kind and
 * field the cache and token log runbook names appears in it, and the runbook's `rg` and
 * `awk` recipes run on it unchanged.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createFileDebugLogger } from "../../src/adapters/node/files/debug-log-file.ts";
import { withEmulator } from "../support/emulator.ts";
import { emulatorSessions, gitWorkspace, scriptedSession } from "./support/golden-sessions.ts";

/** The runbook's recipes, verbatim except for the log path (`$LOG`). */
const TIMELINE =
  `rg 'conversation persistence:|conversation reset:|outbound Run:|hash (systemPrompt|requestContext|checkpoint)|checkpoint: stored|turn_ended raw wire fields:|finish: reason=|turn usage validation:|cache diagnosis:|Run interrupted|resuming .* checkpoint|rebasing fresh Run' "$LOG"`;
const CACHE_ONLY = `rg 'cache diagnosis:' "$LOG"`;
const ONE_SESSION = `rg 'cache diagnosis: sessionKey=ses_EXAMPLE(?: |$)' "$LOG"`;
const SUMMARY = `${ONE_SESSION} |
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

/** Every line kind the runbook names, as it starts (or a pattern). */
const LINE_KINDS: readonly RegExp[] = [
  /^outbound Run: /,
  /^hash systemPrompt sha256=/,
  /^hash requestContext sha256=/,
  /^hash checkpoint sha256=/,
  /^checkpoint: stored .* context=\d+\/\d+ categories=\{/,
  /^turn_ended raw wire fields: f1:in=/,
  /^finish: reason=stop /,
  /^finish: reason=tool-calls /,
  /^turn usage validation: /,
  /^cache diagnosis: /,
  /^conversation reset: reason=foreign-history:edited /,
  /^conversation reset: reason=post-compaction-rebase /,
  /^compaction=true /,
  /^conversation persistence: restored /,
  /^conversation persistence: missing /,
  /^Run interrupted: /,
  /^rebasing fresh Run: /,
  /^fresh turn: cancelled 1 pending exec\(s\) /,
  /^drain outcome=turn-ended /,
  /^held Run released: conversationId=\S+ reason=/,
  /^continuation: 1 interrupted trailing tool result\(s\) \[bash\] heldRun=\S+$/,
  /^context warning: Cursor counted rules=0 although this Run sent the /,
  /^display tool_call_completed: ERROR .*tool=mcpToolCall .*namespace=\(missing\) toolName=\(missing\) error="/,
  /^display tool_call_completed: ERROR .*tool=readToolCall error="File not found"$/,
  /^billing: step=estimate /,
  /^billing: step=turn-end /,
  /^billing: turn real=/,
  /^billing: step=.* pricing=unpriced$/,
  /^git: discovery elapsedMs=\d+ statusMs=\d+ statusComplete=true /,
  /^git: discovery elapsedMs=\d+ statusMs=\d+ statusComplete=false /,
  /^git: `status --porcelain -b` timed out after 5000ms$/,
  /^workspace facts: reused ageMs=\d+$/,
];

/** Fields each line kind must carry somewhere in the log (runbook tables). */
const FIELDS: Readonly<Record<string, readonly string[]>> = {
  "outbound Run:": [
    "sessionKey",
    "conversationId",
    "reset",
    "resume",
    "checkpointLen",
    "requestContext",
  ],
  "cache diagnosis:": [
    "sessionKey",
    "conversationId",
    "conversationGroupId",
    "model",
    "continuity",
    "coldReason",
    "requestContext",
    "requestContextHash",
    "systemPromptHash",
    "systemPromptSent",
    "rawInput",
    "rawCacheRead",
    "rawCacheWrite",
    "rawUncached",
    "rawReadRatio",
    "rawWriteRatio",
    "priorContext",
    "currentContext",
    "contextDelta",
    "rawReadVsPriorContext",
    "sameSizedCategoryTokens",
    "categoryDelta",
    "toolsCategoryChurn",
    "createPlanInTurn",
    "turnEndedCacheRead",
    "cacheReuseEvidence",
    "checkpointUpdates",
    "tokenDetailUpdates",
    "pumpPasses",
    "steps",
    "displayToolCalls",
    "execRequests",
    "perModelCallCache",
  ],
  "turn usage validation:": [
    "status",
    "source",
    "cursor",
    "occupancyTotal",
    "rawTotal",
    "sentTotal",
    "occupancyCachedRatio",
    "rawCachedRatio",
    "sentCachedRatio",
    "breakdownMatch",
  ],
  "finish:": [
    "reason",
    "source",
    "v3In",
    "v3Out",
    "v3CacheRead",
    "v3CacheWrite",
    "rawIn",
    "rawOut",
    "rawCacheRead",
    "rawCacheWrite",
    "occupancyPrefixCache",
    "occupancyIn",
    "occupancyCacheRead",
    "occupancyCacheWrite",
  ],
  "billing: step=": [
    "step",
    "stepUsd",
    "sessionRealUsd",
    "sessionBilledUsd",
    "sessionEstimatedUsd",
    "delivered",
    "pricing",
  ],
};

/** Field values the runbook distinguishes, as `key=value`. */
const VALUES: readonly string[] = [
  "continuity=cold",
  "continuity=warm",
  "coldReason=no-checkpoint",
  "coldReason=foreign-history:edited",
  "requestContext=reused",
  "requestContext=built",
  "systemPromptSent=true",
  "systemPromptSent=false",
  "status=ok",
  "source=checkpoint-current-run",
  "source=occupancy-checkpoint-current-run",
  "source=checkpoint-previous-turn",
  "source=unavailable",
  "breakdownMatch=true",
  "breakdownMatch=stale",
  "toolsCategoryChurn=none",
  "createPlanInTurn=true",
  "turnEndedCacheRead=zero-interaction",
  "cacheReuseEvidence=unavailable",
  "perModelCallCache=unavailable",
  "delivered=true",
  "pricing=unpriced",
];

function shell(script: string, log: string): string {
  const hasRipgrep = spawnSync("sh", ["-c", "command -v rg"], { encoding: "utf8" }).status === 0;
  const run = spawnSync("sh", ["-c", hasRipgrep ? script : script.replace(/^rg /, "grep -P ")], {
    env: { ...process.env, LOG: log },
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(run.status, 0, run.stderr);
  return run.stdout;
}

function keys(line: string): Set<string> {
  return new Set(line.split(" ").filter((f) => f.includes("=")).map((f) => f.split("=")[0] ?? ""));
}

describe("the runbook against a real debug log", () => {
  it("every line kind and field appears, and the rg and awk recipes run unchanged", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-golden-"));
    const log = join(dir, "cursor-cache.log");
    const workspace = join(dir, "repo");
    try {
      spawnSync("mkdir", [workspace]);
      gitWorkspace(workspace);
      const logger = createFileDebugLogger({
        env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: log },
        announce: () => {},
      });
      await withEmulator({}, (emulator) => emulatorSessions(emulator, logger, workspace));
      await scriptedSession(logger);
      // GOLDEN_DUMP=<file> keeps a copy of the log for reading.
      if (process.env.GOLDEN_DUMP) writeFileSync(process.env.GOLDEN_DUMP, readFileSync(log));
      const lines = readFileSync(log, "utf8").split("\n")
        .map((l) => l.replace(/^\S+ /, ""));
      const missingKinds = LINE_KINDS.filter((kind) => !lines.some((l) => kind.test(l)));
      assert.deepEqual(missingKinds, [], "every runbook line kind is in the log");
      for (const [prefix, fields] of Object.entries(FIELDS)) {
        const seen = new Set(
          lines.filter((l) => l.startsWith(prefix)).flatMap((l) => [...keys(l)]),
        );
        assert.deepEqual(fields.filter((f) => !seen.has(f)), [], `${prefix} fields`);
      }
      const text = lines.join("\n");
      assert.deepEqual(VALUES.filter((v) => !text.includes(` ${v}`)), [], "runbook values");
      assert.doesNotMatch(text, /crsr_|Bearer|eyJ/, "no credentials in the log");

      const timeline = shell(TIMELINE, log);
      for (const kind of ["outbound Run:", "checkpoint: stored", "Run interrupted", "rebasing"]) {
        assert.ok(timeline.includes(kind), `the timeline shows ${kind}`);
      }
      assert.equal(
        shell(CACHE_ONLY, log).trim().split("\n").length,
        lines.filter((l) => l.startsWith("cache diagnosis:")).length,
      );
      const example = shell(ONE_SESSION, log).trim().split("\n");
      assert.ok(example.every((l) => l.includes("sessionKey=ses_EXAMPLE ")));
      const summary = /^turns=(\d+) weightedReadRatio=(\d+\.\d)% meanRunRatio=(\d+\.\d)%$/
        .exec(shell(SUMMARY, log).trim());
      assert.ok(summary, "the awk summary prints its line");
      assert.equal(Number(summary[1]), example.length);
      assert.ok(Number(summary[2]) > 0, "warm turns read from the cache");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
