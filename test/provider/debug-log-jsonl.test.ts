import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stepCountIs, streamText } from "ai";
import { createFileDebugLogger } from "../../src/adapters/node/files/debug-log-file.ts";
import type { DebugLogger, DiagnosticRecord } from "../../src/core/logger.ts";
import type { DiagnosticEvent } from "../../src/provider/direct/diagnostics/events.ts";
import { formatDiagnostic } from "../../src/provider/direct/diagnostics/format.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";

const SCRIPT = "::think Plan the listing\n::shell echo hi\n::text Done";

describe("debug log as JSONL", () => {
  it("writes one JSON object per line: the process header and every typed event", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-jsonl-"));
    const log = join(dir, "cursor.jsonl");
    try {
      await withEmulator({}, async (emulator) => {
        const debug = createFileDebugLogger({
          env: {
            CURSOR_PROVIDER_DEBUG: "1",
            CURSOR_PROVIDER_DEBUG_FILE: log,
            CURSOR_PROVIDER_DEBUG_FORMAT: "jsonl",
          },
          announce: () => {},
        });
        const cursor = emulatorProvider(emulator, "sse", { debug });
        await streamText({
          model: cursor("gpt-5"),
          prompt: SCRIPT,
          tools: hostTools(dir),
          stopWhen: stepCountIs(4),
          providerOptions: { cursor: { sessionId: "ses_json" } },
        }).text;
      });
      const records = readFileSync(log, "utf8").trimEnd().split("\n").map((line) =>
        JSON.parse(line) as { time: string; kind: string }
      );
      assert.equal(records[0]?.kind, "process-header");
      const kinds = new Set(records.map((r) => r.kind));
      for (
        const kind of [
          "outbound-run",
          "hash",
          "checkpoint-stored",
          "turn-ended-raw",
          "finish",
          "usage-validation",
          "cache-diagnosis",
          "billing-turn-real",
          "billing-step",
        ]
      ) assert.ok(kinds.has(kind), `a ${kind} event`);
      assert.ok(records.every((r) => !Number.isNaN(Date.parse(r.time))));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("each JSON event formats back to exactly the text line the text log writes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-jsonl-"));
    const pairs: { event: DiagnosticRecord; text: string }[] = [];
    const tee: DebugLogger = {
      enabled: true,
      line: () => {},
      record: (event, text) => pairs.push({ event, text }),
    };
    try {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, "sse", { debug: tee });
        for (const prompt of [SCRIPT, "::text Second turn"]) {
          await streamText({
            model: cursor("gpt-5"),
            prompt,
            tools: hostTools(dir),
            stopWhen: stepCountIs(4),
            providerOptions: { cursor: { sessionId: "ses_json" } },
          }).text;
        }
      });
      assert.ok(pairs.length > 10);
      for (const { event, text } of pairs) {
        const parsed = JSON.parse(JSON.stringify(event)) as DiagnosticEvent;
        assert.equal(formatDiagnostic(parsed), text);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
