import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { derivedKey, firstRealUserMessage } from "../../src/provider/direct/call/derived-key.ts";

const user = (text: string) => ({
  role: "user" as const,
  content: [{ type: "text" as const, text }],
});
const facts = { modelId: "gpt-5", workspace: "/work/app", systemPrompt: "Be brief" };

describe("derived conversation keys", () => {
  it("anchors on the first message a person wrote, not on host-injected reminders", async () => {
    const injected = user("<system-reminder>\nPlan mode is active\n</system-reminder>");
    const prompt: LanguageModelV3Prompt = [
      { role: "system", content: "Be brief" },
      injected,
      user("   "),
      user("fix the login bug"),
    ];
    assert.deepEqual(firstRealUserMessage(prompt), user("fix the login bug"));
    const later = [...prompt, { role: "assistant" as const, content: [] }, user("and the logout")];
    assert.equal(
      await derivedKey(later, facts),
      await derivedKey([user("fix the login bug")], facts),
    );
  });

  it("gives another key for another model, workspace or system prompt, never a session id", async () => {
    const prompt = [user("hi")];
    const key = await derivedKey(prompt, facts);
    assert.match(key ?? "", /^derived:[0-9a-f]{32}$/);
    assert.ok(!(key ?? "").includes("hi"), "no message text in the key");
    const others = await Promise.all([
      derivedKey(prompt, { ...facts, modelId: "claude-4.5-sonnet" }),
      derivedKey(prompt, { ...facts, workspace: "/work/other" }),
      derivedKey(prompt, { ...facts, systemPrompt: "Be thorough" }),
      derivedKey([user("hello")], facts),
    ]);
    assert.equal(new Set([key, ...others]).size, 5);
  });

  it("has no key for a prompt without a real user message", async () => {
    assert.equal(await derivedKey([user(""), { role: "system", content: "x" }], facts), undefined);
  });
});
