/**
 * Recorded stream-json fixtures through the pure pipeline (line decoder → parser →
 * mapper) into AI SDK stream parts.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { createLineDecoder } from "../../../src/cli/line-decoder.ts";
import { parseStreamJsonLine } from "../../../src/cli/stream-event.ts";
import {
  createStreamMapper,
  type StreamMapper,
  type StreamMapperOptions,
} from "../../../src/provider/cli/stream-mapper.ts";
import { createDeltaTracker } from "../../../src/cli/text-dedupe.ts";
import { createMemoryLogger } from "../../../src/core/logger.ts";
import { readFixture, textOf } from "../../cli/helpers.ts";

const BASH = {
  name: "bash",
  properties: ["command", "description", "workdir"],
  required: ["command", "description"],
};
const GLOB = { name: "glob", properties: ["pattern", "path"], required: ["pattern"] };
const GREP = { name: "grep", properties: ["pattern", "path", "include"], required: ["pattern"] };

/** Plays a fixture; `batchPerLine` ends a read batch after every line (else one batch). */
function play(
  fixture: string,
  options: Partial<StreamMapperOptions> = {},
  batchPerLine = true,
): { parts: LanguageModelV3StreamPart[]; mapper: StreamMapper; log: string[] } {
  const { logger, lines: log } = createMemoryLogger();
  const mapper = createStreamMapper({ hostTools: [], toolExecution: "host", logger, ...options });
  const decoder = createLineDecoder();
  const parts: LanguageModelV3StreamPart[] = [];
  const feed = (lines: string[]) => {
    for (const line of lines) {
      const parsed = parseStreamJsonLine(line);
      if (parsed.kind === "malformed") log.push(`malformed: ${parsed.reason}`);
      if (parsed.kind === "event") parts.push(...mapper.push(parsed.event));
      if (batchPerLine) parts.push(...mapper.endBatch());
    }
  };
  feed(decoder.push(new TextEncoder().encode(readFixture(fixture))));
  feed(decoder.end());
  if (!batchPerLine) parts.push(...mapper.endBatch());
  parts.push(...mapper.finish());
  return { parts, mapper, log };
}

describe("text de-duplication", () => {
  it("keeps deltas, drops the segment flush and the cumulative final", () => {
    const tracker = createDeltaTracker();
    const out = [
      tracker.accept("Running ", true),
      tracker.accept("it now.", true),
      tracker.accept("Running it now.", false),
    ];
    tracker.breakSegment();
    out.push(
      tracker.accept("It prints 1.", true),
      tracker.accept("Running it now.It prints 1.", false),
    );
    assert.equal(out.join(""), "Running it now.It prints 1.");
  });

  it("emits snapshots without deltas whole, once per segment", () => {
    const tracker = createDeltaTracker();
    const first = tracker.accept("Part one.", false);
    tracker.breakSegment();
    const second = tracker.accept("Part two.", false);
    assert.equal(first + second, "Part one.Part two.");
  });

  it("extends a partly streamed segment with the new tail of a snapshot", () => {
    const tracker = createDeltaTracker();
    tracker.accept("Hel", true);
    assert.equal(tracker.accept("Hello world", false), "lo world");
  });

  it("recognises a cumulative final that joins segments with whitespace", () => {
    const tracker = createDeltaTracker();
    tracker.accept("One.", true);
    tracker.breakSegment();
    tracker.accept("Two.", true);
    assert.equal(tracker.accept("One.\n\nTwo. Three.", false), " Three.");
  });
});

describe("stream mapper on recorded fixtures", () => {
  it("maps the shell turn to reasoning, text and a provider-executed call when the host has no shell tool", () => {
    const { parts } = play("shell-turn.jsonl");
    assert.deepEqual(parts.map((part) => part.type), [
      "response-metadata",
      "reasoning-start",
      "reasoning-delta",
      "reasoning-end",
      "text-start",
      "text-delta",
      "text-delta",
      "text-end",
      "tool-call",
      "tool-result",
      "text-start",
      "text-delta",
      "text-end",
      "finish",
    ]);
    assert.equal(textOf(parts), "Running it now.It prints `hello world`.");
    const call = parts.find((part) => part.type === "tool-call");
    assert.deepEqual(call, {
      type: "tool-call",
      toolCallId: "call-shell-7",
      toolName: "cursor_shell",
      input: JSON.stringify({
        command: "python3 hello.py",
        workingDirectory: "",
        timeout: 30000,
        toolCallId: "call-shell-7",
      }),
      providerExecuted: true,
      dynamic: true,
    });
    const result = parts.find((part) => part.type === "tool-result");
    assert.equal(result?.type === "tool-result" && result.isError, false);
    const finish = parts.at(-1);
    assert.deepEqual(finish?.type === "finish" ? finish.usage.inputTokens : undefined, {
      total: 14948,
      noCache: 14948,
      cacheRead: 0,
      cacheWrite: 0,
    });
    assert.deepEqual(finish?.type === "finish" ? finish.finishReason : undefined, {
      unified: "stop",
      raw: "success",
    });
    assert.deepEqual(finish?.type === "finish" ? finish.providerMetadata : undefined, {
      cursor: {
        chatId: "5f0c1b2e-3d4a-4b5c-8d6e-7f8091a2b3c4",
        requestId: "00000001",
        durationMs: 4889,
      },
    });
  });

  it("hands the shell call to the host's bash tool and asks to stop the CLI", () => {
    const { parts, mapper } = play("shell-turn.jsonl", { hostTools: [BASH] });
    const hostCall = parts.find((part) => part.type === "tool-call");
    assert.deepEqual(hostCall, {
      type: "tool-call",
      toolCallId: "call-shell-7",
      toolName: "bash",
      input: JSON.stringify({
        command: "python3 hello.py",
        description: "Cursor: python3 hello.py",
      }),
    });
    assert.ok(mapper.stopRequested);
    assert.equal(textOf(parts), "Running it now.", "nothing after the hand-off reaches the host");
    assert.equal(parts.filter((part) => part.type === "tool-result").length, 0);
    const finish = parts.at(-1);
    assert.equal(finish?.type === "finish" ? finish.finishReason.unified : undefined, "tool-calls");
    assert.deepEqual(mapper.reply, { text: "Running it now.", toolCallIds: ["call-shell-7"] });
  });

  it("turns a held host call into a provider-executed one when Cursor finished it in the same read", () => {
    const { parts, mapper, log } = play("shell-turn.jsonl", { hostTools: [BASH] }, false);
    const call = parts.find((part) => part.type === "tool-call");
    assert.equal(call?.type === "tool-call" && call.providerExecuted, true);
    assert.equal(mapper.stopRequested, false);
    assert.ok(log.some((line) => line.includes("completed before it could be handed to the host")));
  });

  it("hands parallel calls that arrive in one read to the host together", () => {
    const mapper = createStreamMapper({ hostTools: [BASH, GLOB, GREP], toolExecution: "host" });
    const lines = readFixture("parallel-tools.jsonl").split("\n").slice(0, 6);
    const parts: LanguageModelV3StreamPart[] = [];
    for (const line of lines) {
      const parsed = parseStreamJsonLine(line);
      if (parsed.kind === "event") parts.push(...mapper.push(parsed.event));
    }
    parts.push(...mapper.endBatch());
    assert.ok(mapper.stopRequested);
    const calls = parts.filter((part) => part.type === "tool-call");
    assert.deepEqual(
      calls.map((part) => part.type === "tool-call" ? [part.toolName, JSON.parse(part.input)] : []),
      [
        ["glob", { pattern: "**/*.json", path: "/w" }],
        ["grep", { pattern: "config", path: "/w" }],
      ],
    );
  });

  it("reports calls Cursor already completed within the same read as provider-executed", () => {
    const { parts, mapper } = play(
      "parallel-tools.jsonl",
      { hostTools: [BASH, GLOB, GREP] },
      false,
    );
    assert.equal(mapper.stopRequested, false);
    const calls = parts.filter((part) => part.type === "tool-call");
    assert.ok(calls.every((part) => part.type === "tool-call" && part.providerExecuted === true));
    assert.equal(parts.filter((part) => part.type === "tool-result").length, 2);
  });

  it("with toolExecution cursor, maps every call as provider-executed, results in completion order", () => {
    const { parts } = play("parallel-tools.jsonl", {
      hostTools: [BASH, GLOB],
      toolExecution: "cursor",
    });
    const results = parts.filter((part) => part.type === "tool-result");
    assert.deepEqual(results.map((part) => part.type === "tool-result" ? part.toolCallId : ""), [
      "call-grep-1",
      "call-glob-0",
    ]);
    assert.equal(textOf(parts), "Looking.Found a.json.");
    const finish = parts.at(-1);
    assert.deepEqual(finish?.type === "finish" ? finish.usage.inputTokens : undefined, {
      total: 550,
      noCache: 100,
      cacheRead: 400,
      cacheWrite: 50,
    });
  });

  it("survives banners, blank and broken lines, reconnects, bad call ids and unknown events", () => {
    const { parts, log } = play("noisy-reconnect.jsonl");
    assert.equal(textOf(parts), "Done");
    const calls = parts.filter((part) => part.type === "tool-call");
    assert.deepEqual(calls.map((part) => part.type === "tool-call" ? part.toolCallId : ""), [
      "call_x1",
      "Shell_0_abc",
    ]);
    const results = parts.filter((part) => part.type === "tool-result");
    assert.deepEqual(
      results.map((part) => part.type === "tool-result" ? [part.toolCallId, part.isError] : []),
      [["Shell_0_abc", true], ["call_x1", true]],
      "the lost completion is closed as an error so the host is not left waiting",
    );
    assert.ok(
      parts.some((part) => part.type === "reasoning-delta" && part.delta === "Older shape."),
    );
    assert.equal(log.filter((line) => line.startsWith("malformed")).length, 2);
    assert.ok(log.some((line) => line.includes('"brand_new_event"')));
    assert.ok(log.some((line) => line.includes("connection/reconnecting")));
    const finish = parts.at(-1);
    assert.deepEqual(finish?.type === "finish" ? finish.usage.outputTokens : undefined, {
      total: 3,
      text: 2,
      reasoning: 1,
    });
  });

  it("keeps the error result for the caller and reports no usage it was not given", () => {
    const { mapper, parts } = play("error-result.jsonl");
    assert.equal(mapper.result?.isError, true);
    assert.match(mapper.result?.text ?? "", /Cannot use this model/);
    const finish = parts.at(-1);
    assert.equal(finish?.type === "finish" ? finish.usage.inputTokens.total : 0, undefined);
  });

  it("emits an error part before finish when the turn failed", () => {
    const mapper = createStreamMapper({ hostTools: [], toolExecution: "host" });
    const parts = mapper.finish(new Error("boom"));
    assert.deepEqual(parts.map((part) => part.type), ["error", "finish"]);
    assert.equal(parts[1]?.type === "finish" ? parts[1].finishReason.unified : undefined, "error");
  });
});
