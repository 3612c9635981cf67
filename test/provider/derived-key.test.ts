import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { derivedKey, firstRealUserMessage } from "../../src/provider/direct/call/derived-key.ts";
import {
  MAX_FORK_DEPTH,
  resolveDerivedKey,
} from "../../src/provider/direct/turn-plan/derived-conversation.ts";
import { promptDigests } from "../../src/provider/direct/turn-plan/history.ts";
import { Conversation } from "../../src/conversation/conversation.ts";

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

describe("resolving a derived key through its forks", () => {
  const prompt: LanguageModelV3Prompt = [user("hi")];
  const stored = (key: string) => {
    const conversation = new Conversation<unknown>(key, `c-${key}`, `c-${key}`, 0);
    conversation.adoptCheckpoint({ bytes: new Uint8Array([1]) });
    conversation.recordPass(promptDigests(prompt), "Hello", true);
    return conversation;
  };

  it("forks a repeated prompt to a key of its own, and stops following forks at the limit", async () => {
    const held = new Map<string, Conversation<unknown>>();
    const lookup = {
      prompt,
      hasResults: false,
      restore: async () => {},
      get: (key: string) => held.get(key),
    };
    const first = await resolveDerivedKey("derived:start", lookup);
    assert.deepEqual(first, { key: "derived:start", forkReason: undefined });
    held.set("derived:start", stored("derived:start"));
    const keys: string[] = [];
    for (let i = 0; i <= MAX_FORK_DEPTH + 2; i++) {
      const resolved = await resolveDerivedKey("derived:start", lookup);
      keys.push(resolved.key);
      if (held.has(resolved.key)) break;
      assert.equal(resolved.forkReason, "derived-fork:repeated-prompt");
      held.set(resolved.key, stored(resolved.key));
    }
    assert.equal(new Set(keys).size, MAX_FORK_DEPTH, "one new key per fork up to the limit");
    const last = await resolveDerivedKey("derived:start", lookup);
    assert.equal(last.forkReason, undefined, "past the limit the deepest key is reseeded");
    assert.equal(last.key, keys.at(-1));
  });
});
