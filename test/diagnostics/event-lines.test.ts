import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryLogger, type DebugLogger } from "../../src/core/logger.ts";
import type { DiagnosticEvent } from "../../src/provider/direct/diagnostics/events.ts";
import { emitDiagnostic, formatDiagnostic } from "../../src/provider/direct/diagnostics/format.ts";
import {
  logDrain,
  logFreshTurn,
  logRebase,
  logRunInterrupted,
} from "../../src/provider/direct/recovery/lines.ts";

/** Every event with the exact runbook line it must print. */
const GOLDEN: ReadonlyArray<readonly [DiagnosticEvent, string]> = [
  [
    {
      kind: "persistence-restored",
      sessionKey: "s1",
      conversationId: "c1",
      conversationGroupId: "g1",
      blobs: 3,
      bytes: 512,
      ageMs: 1200,
      restoreMs: 4,
    },
    "conversation persistence: restored sessionKey=s1 conversationId=c1 conversationGroupId=g1 blobs=3 bytes=512 ageMs=1200 restoreMs=4",
  ],
  [
    { kind: "persistence-outcome", status: "missing", sessionKey: "s1" },
    "conversation persistence: missing sessionKey=s1",
  ],
  [
    { kind: "persistence-outcome", status: "expired", sessionKey: "s1", reason: "age-ms-9" },
    "conversation persistence: expired sessionKey=s1 reason=age-ms-9",
  ],
  [
    { kind: "persistence-outcome", status: "save failure", sessionKey: "s1", reason: "disk full" },
    "conversation persistence: save failure sessionKey=s1 reason=disk full",
  ],
  [
    { kind: "compaction", sessionKey: "s1", conversationId: "c1", conversationGroupId: "g1" },
    "compaction=true sessionKey=s1 conversationId=c1 conversationGroupId=g1 run=ephemeral",
  ],
  [
    {
      kind: "compaction",
      sessionKey: undefined,
      conversationId: undefined,
      conversationGroupId: undefined,
    },
    "compaction=true sessionKey=none conversationId=none conversationGroupId=none run=ephemeral",
  ],
  [
    { kind: "image-catalogue-unreadable", errorName: "TypeError" },
    "images: catalogue unreadable (TypeError)",
  ],
  [
    { kind: "fresh-turn", conversationId: "c1", cancelled: 2, delivered: 1 },
    "fresh turn: cancelled 2 pending exec(s) delivered=1 conversationId=c1",
  ],
  [
    { kind: "drain", conversationId: "c1", outcome: "timeout", discardedChars: 40 },
    "drain outcome=timeout conversationId=c1 discardedChars=40",
  ],
  [
    {
      kind: "run-interrupted",
      conversationId: "c1",
      code: "network",
      streamedChars: 12,
      replaySafe: false,
      checkpoints: 1,
    },
    "Run interrupted: conversationId=c1 code=network streamedChars=12 replaySafe=false checkpoints=1",
  ],
  [
    {
      kind: "rebase",
      conversationId: "c1",
      attempt: 2,
      retry: "transport",
      code: "network",
      delayMs: 250,
    },
    "rebasing fresh Run: conversationId=c1 attempt=2 retry=transport code=network delayMs=250 resume=false",
  ],
  [
    {
      kind: "resume",
      conversationId: "c1",
      attempt: 1,
      retry: "transport",
      code: "network",
      delayMs: 0,
      checkpointLen: 408,
      resumesWithoutCheckpoint: 1,
      limit: 2,
    },
    "resuming Run from checkpoint: conversationId=c1 attempt=1 retry=transport code=network delayMs=0 checkpointLen=408 resumesWithoutCheckpoint=1/2 resume=true",
  ],
];

/** A logger that keeps typed records, as the JSONL sink does. */
function recordingLogger(): { logger: DebugLogger; records: unknown[]; texts: string[] } {
  const records: unknown[] = [];
  const texts: string[] = [];
  return {
    records,
    texts,
    logger: {
      enabled: true,
      line: (text) => texts.push(text),
      record: (event, text) => {
        records.push(event);
        texts.push(text);
      },
    },
  };
}

describe("diagnostic event lines", () => {
  it("prints each recovery, persistence, compaction and image line exactly", () => {
    for (const [event, line] of GOLDEN) assert.equal(formatDiagnostic(event), line);
  });

  it("hands a structured sink the typed event with its text", () => {
    const sink = recordingLogger();
    for (const [event] of GOLDEN) emitDiagnostic(sink.logger, event);
    assert.deepEqual(sink.records, GOLDEN.map(([event]) => event));
    assert.deepEqual(sink.texts, GOLDEN.map(([, line]) => line));
  });

  it("recovery helpers write their lines through events", () => {
    const sink = recordingLogger();
    logFreshTurn(sink.logger, { conversationId: "c1", cancelled: 2, delivered: 1 });
    logDrain(sink.logger, { conversationId: "c1", outcome: "timeout", discardedChars: 40 });
    logRunInterrupted(sink.logger, {
      conversationId: "c1",
      code: "network",
      streamedChars: 12,
      replaySafe: false,
      checkpoints: 1,
    });
    logRebase(sink.logger, {
      conversationId: "c1",
      attempt: 2,
      kind: "transport",
      code: "network",
      delayMs: 250,
    });
    assert.deepEqual(sink.texts, GOLDEN.slice(7, 11).map(([, line]) => line));
    assert.deepEqual(sink.records.map((r) => (r as { kind: string }).kind), [
      "fresh-turn",
      "drain",
      "run-interrupted",
      "rebase",
    ]);
  });

  it("writes nothing to a disabled logger", () => {
    const { logger, lines } = createMemoryLogger();
    const off: DebugLogger = { ...logger, enabled: false };
    logRebase(off, { conversationId: "c", attempt: 1, kind: "k", code: "x", delayMs: 0 });
    assert.deepEqual(lines, []);
  });
});
