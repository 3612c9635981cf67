/** The line decoder and the stream-json event parser. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createLineDecoder } from "../../src/cli/line-decoder.ts";
import { isDeltaEvent, parseStreamJsonLine } from "../../src/cli/stream-event.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("line decoder", () => {
  it("joins lines split across chunks, including inside a UTF-8 character", () => {
    const decoder = createLineDecoder();
    const encoded = bytes('{"text":"héllo ✓"}\n');
    const lines = [
      ...decoder.push(encoded.slice(0, 11)),
      ...decoder.push(encoded.slice(11, 19)),
      ...decoder.push(encoded.slice(19)),
    ];
    assert.deepEqual(lines, ['{"text":"héllo ✓"}']);
  });

  it("splits several lines in one chunk, strips CRLF and returns a final line without newline", () => {
    const decoder = createLineDecoder();
    assert.deepEqual(decoder.push(bytes("a\r\nb\n\nc")), ["a", "b", ""]);
    assert.deepEqual(decoder.end(), ["c"]);
  });

  it("drops an overlong line and keeps decoding after it", () => {
    const decoder = createLineDecoder({ maxLineChars: 10 });
    assert.deepEqual(decoder.push(bytes("0123456789abc")), []);
    assert.deepEqual(decoder.push(bytes("def\nok\n")), ["ok"]);
    assert.equal(decoder.droppedLines, 1);
  });
});

describe("stream-json parser", () => {
  it("reads init with the chat id and the model's display name", () => {
    const parsed = parseStreamJsonLine(
      '{"type":"system","subtype":"init","apiKeySource":"login","cwd":"/w","session_id":"c1","model":"Claude 4.6 Sonnet","permissionMode":"default"}',
    );
    assert.deepEqual(parsed, {
      kind: "event",
      event: { kind: "init", sessionId: "c1", model: "Claude 4.6 Sonnet", cwd: "/w" },
    });
  });

  it("tells deltas from flushes and finals", () => {
    const event = (extra: string) => {
      const parsed = parseStreamJsonLine(
        `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}${extra}}`,
      );
      assert.ok(parsed.kind === "event" && parsed.event.kind === "assistant");
      return parsed.event;
    };
    assert.equal(isDeltaEvent(event(',"timestamp_ms":1')), true);
    assert.equal(isDeltaEvent(event(',"timestamp_ms":1,"model_call_id":"m"')), false);
    assert.equal(isDeltaEvent(event("")), false);
  });

  it("names tools after their key and keeps args, outcome and result", () => {
    const parsed = parseStreamJsonLine(
      '{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"updateTodosToolCall":{"args":{"todos":[]},"result":{"rejected":{"reason":"no"}}}}}',
    );
    assert.ok(parsed.kind === "event" && parsed.event.kind === "tool-call");
    assert.equal(parsed.event.toolName, "updateTodos");
    assert.equal(parsed.event.outcome, "rejected");
    assert.deepEqual(parsed.event.result, { reason: "no" });
  });

  it("accepts the generic function form with JSON-string arguments", () => {
    const parsed = parseStreamJsonLine(
      '{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"function":{"name":"read","arguments":"{\\"path\\":\\"a\\"}"}}}',
    );
    assert.ok(parsed.kind === "event" && parsed.event.kind === "tool-call");
    assert.equal(parsed.event.toolName, "read");
    assert.deepEqual(parsed.event.args, { path: "a" });
  });

  it("reports non-JSON, non-objects and typeless objects as malformed, never throwing", () => {
    for (const line of ["T: banner", "[1,2]", '{"a":1}', '{"type":"assistant",', "null"]) {
      assert.equal(parseStreamJsonLine(line).kind, "malformed", line);
    }
    assert.equal(parseStreamJsonLine("   ").kind, "blank");
  });

  it("keeps unknown event types and ignores the known chatter", () => {
    const unknown = parseStreamJsonLine('{"type":"shiny","session_id":"c"}');
    assert.deepEqual(unknown, {
      kind: "event",
      event: { kind: "unknown", type: "shiny", sessionId: "c" },
    });
    const retry = parseStreamJsonLine('{"type":"retry","subtype":"resuming","attempt":3}');
    assert.deepEqual(retry, {
      kind: "event",
      event: { kind: "ignored", type: "retry", subtype: "resuming" },
    });
  });

  it("reads the result's error form and usage in either case style", () => {
    const error = parseStreamJsonLine(
      '{"type":"result","subtype":"error","error":{"message":"boom"}}',
    );
    assert.ok(error.kind === "event" && error.event.kind === "result");
    assert.equal(error.event.isError, true);
    assert.equal(error.event.text, "boom");
    const usage = parseStreamJsonLine(
      '{"type":"result","subtype":"success","is_error":false,"result":"ok","usage":{"input_tokens":5,"cache_read_input_tokens":7}}',
    );
    assert.ok(usage.kind === "event" && usage.event.kind === "result");
    assert.equal(usage.event.usage?.inputTokens, 5);
    assert.equal(usage.event.usage?.cacheReadTokens, 7);
  });
});
