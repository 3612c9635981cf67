import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Message } from "@ai-sdk/provider";
import { messageDigest } from "../../../../src/provider/direct/call/prompt-digests.ts";

/** FNV-1a 64 with BigInt, the form snapshots were written with: digests must not change. */
function referenceFnv1a64(text: string): string {
  let hash = 0xcbf29ce484222325n;
  for (const byte of new TextEncoder().encode(text)) {
    hash ^= BigInt(byte);
    hash = (hash * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return hash.toString(16).padStart(16, "0");
}

describe("message digests", () => {
  it("equal the 64-bit FNV-1a of the canonical JSON, so stored histories still match", () => {
    const texts = [
      "",
      "hi",
      "ünïcødé ✓ 😀",
      "x".repeat(10_000),
      "\u0000\u00ff\uffff",
      "lone \ud800 x \udc00 end \ud83d",
      "\u07ff\u0800\uffff",
    ];
    for (let i = 0; i < 200; i++) {
      texts.push(
        String.fromCharCode(
          ...Array.from({ length: i }, (_, j) => (i * 7919 + j * 104729) % 0xd7ff),
        ),
      );
    }
    for (const text of texts) {
      const message: LanguageModelV3Message = { role: "user", content: [{ type: "text", text }] };
      const content = [{ type: "text", text }];
      assert.equal(messageDigest(message), referenceFnv1a64(JSON.stringify(["user", content])));
    }
    const system: LanguageModelV3Message = { role: "system", content: "rules" };
    assert.equal(messageDigest(system), referenceFnv1a64(JSON.stringify(["system", "rules"])));
  });
});

describe("message digests of huge messages", () => {
  const huge = (fill: string, size: number) =>
    fill.repeat(Math.ceil(size / fill.length)).slice(0, size);
  const toolResult = (value: string): LanguageModelV3Message => ({
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "call_1",
      toolName: "bash",
      output: { type: "text", value },
    }],
  });

  it("tell apart outputs that differ in length, head or tail", () => {
    const base = huge("0123456789abcdef\n", 5 * 1024 * 1024);
    const digests = new Set([
      messageDigest(toolResult(base)),
      messageDigest(toolResult(`${base}x`)),
      messageDigest(toolResult(`x${base.slice(1)}`)),
      messageDigest(toolResult(`${base.slice(0, -1)}x`)),
    ]);
    assert.equal(digests.size, 4);
    assert.equal(messageDigest(toolResult(base)), messageDigest(toolResult(`${base}`)));
  });

  it("stay exactly the full-text digest up to 256 Ki characters", () => {
    const value = huge("ab", 256 * 1024);
    const content = [{
      type: "tool-result",
      toolCallId: "call_1",
      toolName: "bash",
      output: { type: "text", value },
    }];
    assert.equal(
      messageDigest(toolResult(value)),
      referenceFnv1a64(JSON.stringify(["tool", content])),
    );
  });
});
