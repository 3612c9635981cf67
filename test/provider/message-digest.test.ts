import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Message } from "@ai-sdk/provider";
import { messageDigest } from "../../src/provider/direct/history.ts";

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
