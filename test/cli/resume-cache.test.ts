/** The resume cache (LRU, lifetime, safe ids) and the resume decision. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createResumeCache, isSafeChatId, type ResumeEntry } from "../../src/cli/resume-cache.ts";
import { entryFor, planResume, type ResumePlanInput } from "../../src/provider/cli/resume-plan.ts";
import { isSessionResumeEnabled } from "../../src/cli/env-flags.ts";

const HOUR = 60 * 60 * 1000;

function entry(chatId: string, updatedAtMs = 0): ResumeEntry {
  return {
    chatId,
    toolFingerprint: "",
    userCount: 1,
    userDigest: "u",
    messageCount: 1,
    messageDigest: "m",
    replyDigest: "r",
    updatedAtMs,
  };
}

describe("resume cache", () => {
  it("holds 64 entries and evicts the least recently used", () => {
    const cache = createResumeCache();
    for (let index = 0; index < 64; index++) cache.store(`k${index}`, entry(`chat-${index}`));
    assert.equal(cache.lookup("k0", 1).status, "hit", "reading k0 makes it the most recently used");
    cache.store("k64", entry("chat-64"));
    assert.equal(cache.size, 64);
    assert.equal(cache.has("k0"), true);
    assert.equal(cache.has("k1"), false, "k1 was the least recently used");
  });

  it("expires entries an hour after their last write; reading does not extend that", () => {
    const cache = createResumeCache();
    cache.store("k", entry("chat", 1000));
    assert.equal(cache.lookup("k", 1000 + HOUR - 1).status, "hit");
    assert.equal(cache.lookup("k", 1000 + HOUR + 1).status, "expired");
    assert.equal(cache.has("k"), false, "an expired entry is removed");
  });

  it("refuses chat ids that are not letters, digits, hyphens and underscores", () => {
    const cache = createResumeCache();
    for (const bad of ["", "a b", "a;b", "../x", "-flag", "_x", "a\nb", "ä", "x".repeat(129)]) {
      assert.equal(isSafeChatId(bad), false, JSON.stringify(bad));
      assert.equal(cache.store("k", entry(bad)), false);
    }
    assert.equal(cache.size, 0);
    assert.equal(isSafeChatId("0ef42bbf-3b80-4bec-ac39-ca46531cbc47"), true);
    assert.equal(isSafeChatId("chat_7"), true);
  });

  it("takes capacity and lifetime overrides and rejects nonsense", () => {
    const cache = createResumeCache({ capacity: 1, ttlMs: 10 });
    cache.store("a", entry("a"));
    cache.store("b", entry("b"));
    assert.deepEqual([cache.has("a"), cache.has("b")], [false, true]);
    assert.throws(() => createResumeCache({ capacity: 0 }), /capacity "0"/);
  });
});

describe("session resume switch", () => {
  it("accepts 1, true, on and yes", () => {
    for (const value of ["1", "true", "on", "yes", "TRUE", " Yes "]) {
      assert.equal(isSessionResumeEnabled({ CURSOR_ACP_SESSION_RESUME: value }), true, value);
    }
    for (const value of ["0", "false", "off", "no", "", "enabled"]) {
      assert.equal(isSessionResumeEnabled({ CURSOR_ACP_SESSION_RESUME: value }), false, value);
    }
  });
});

const user = (text: string): LanguageModelV3Message => ({
  role: "user",
  content: [{ type: "text", text }],
});
const assistant = (text: string, toolCallIds: string[] = []): LanguageModelV3Message => ({
  role: "assistant",
  content: [
    { type: "text", text },
    ...toolCallIds.map((id) => ({
      type: "tool-call" as const,
      toolCallId: id,
      toolName: "bash",
      input: {},
    })),
  ],
});
const toolResult = (id: string): LanguageModelV3Message => ({
  role: "tool",
  content: [{
    type: "tool-result",
    toolCallId: id,
    toolName: "bash",
    output: { type: "text", value: "ok" },
  }],
});
const SYSTEM: LanguageModelV3Message = { role: "system", content: "You are an agent." };

/** Runs a turn's plan and records the reply as a successful turn would. */
async function turnPlan(
  input: ResumePlanInput,
  reply: { text: string; toolCallIds: string[] },
  chatId = "chat-1",
) {
  const plan = await planResume(input);
  if (plan.commit) {
    input.cache.store(plan.commit.key, entryFor(plan.commit, chatId, reply, input.nowMs));
  }
  return plan;
}

function base(
  prompt: LanguageModelV3Prompt,
  overrides: Partial<ResumePlanInput> = {},
): ResumePlanInput {
  return {
    enabled: true,
    workspace: "/w",
    model: "auto",
    prompt,
    toolFingerprint: "1:abc",
    cache: createResumeCache(),
    nowMs: 0,
    ...overrides,
  };
}

describe("resume decision", () => {
  it("is fresh when switched off or for metadata requests, without touching the cache", async () => {
    assert.deepEqual(await planResume(base([user("hi")], { enabled: false })), {
      mode: "fresh",
      reason: "disabled",
    });
    const title = await planResume(
      base([user("Generate a title for this conversation:\n"), user("hi")]),
    );
    assert.deepEqual(title, { mode: "fresh", reason: "metadata-title" });
  });

  it("resumes incrementally when the history is an exact prefix", async () => {
    const cache = createResumeCache();
    const first = [SYSTEM, user("one")];
    await turnPlan(base(first, { cache }), { text: "Reply one", toolCallIds: [] });
    const plan = await planResume(
      base([...first, assistant("Reply  one"), user("two")], { cache }),
    );
    assert.deepEqual(
      plan.mode === "incremental" ? [plan.mode, plan.chatId, plan.prompt] : plan,
      ["incremental", "chat-1", "two"],
    );
  });

  it("resumes with tool results after a handed-off tool call", async () => {
    const cache = createResumeCache();
    const first = [SYSTEM, user("run it")];
    await turnPlan(base(first, { cache }), { text: "Running.", toolCallIds: ["c1"] });
    const plan = await planResume(
      base([...first, assistant("Running.", ["c1"]), toolResult("c1")], { cache }),
    );
    assert.equal(plan.mode, "incremental");
    assert.match(plan.mode === "incremental" ? plan.prompt : "", /^ASSISTANT:\nTOOL_CALL \(id: c1/);
  });

  it("starts fresh when the assistant reply differs from the chat's (a diverged branch)", async () => {
    const cache = createResumeCache();
    const first = [SYSTEM, user("one")];
    await turnPlan(base(first, { cache }), { text: "Reply A", toolCallIds: [] });
    const plan = await planResume(base([...first, assistant("Reply B"), user("two")], { cache }));
    assert.deepEqual([plan.mode, plan.reason], ["fresh", "reply-diverged"]);
  });

  it("starts fresh when earlier user messages differ", async () => {
    const cache = createResumeCache();
    await turnPlan(base([SYSTEM, user("one"), assistant("r1"), user("two A")], { cache }), {
      text: "r2",
      toolCallIds: [],
    });
    const plan = await planResume(
      base([SYSTEM, user("one"), assistant("r1"), user("two B"), assistant("r2"), user("three")], {
        cache,
      }),
    );
    assert.deepEqual([plan.mode, plan.reason], ["fresh", "users-diverged"]);
  });

  it("starts fresh when the request repeats what the chat already saw", async () => {
    const cache = createResumeCache();
    const first = [SYSTEM, user("one")];
    await turnPlan(base(first, { cache }), { text: "r", toolCallIds: [] });
    const plan = await planResume(base(first, { cache }));
    assert.deepEqual([plan.mode, plan.reason], ["fresh", "nothing-new"]);
  });

  it("resumes with the full prompt when only the system prompt changed", async () => {
    const cache = createResumeCache();
    await turnPlan(base([SYSTEM, user("one")], { cache }), { text: "r", toolCallIds: [] });
    const plan = await planResume(
      base([
        { role: "system", content: "You are an agent. Today is Tuesday." },
        user("one"),
        assistant("r"),
        user("two"),
      ], {
        cache,
      }),
    );
    assert.deepEqual([plan.mode, plan.reason], ["full-resume", "history-changed"]);
  });

  it("evicts on a changed tool fingerprint and on expiry", async () => {
    const cache = createResumeCache();
    const first = [SYSTEM, user("one")];
    const next = [...first, assistant("r"), user("two")];
    await turnPlan(base(first, { cache }), { text: "r", toolCallIds: [] });
    const changed = await planResume(base(next, { cache, toolFingerprint: "2:def" }));
    assert.deepEqual([changed.mode, changed.reason, cache.size], ["fresh", "tools-changed", 0]);
    await turnPlan(base(first, { cache }), { text: "r", toolCallIds: [] });
    const late = await planResume(base(next, { cache, nowMs: HOUR + 1 }));
    assert.deepEqual([late.mode, late.reason, cache.size], ["fresh", "expired", 0]);
  });

  it("keys by workspace and model", async () => {
    const cache = createResumeCache();
    const first = [SYSTEM, user("one")];
    const next = [...first, assistant("r"), user("two")];
    await turnPlan(base(first, { cache }), { text: "r", toolCallIds: [] });
    assert.equal((await planResume(base(next, { cache, model: "gpt-5" }))).reason, "no-entry");
    assert.equal((await planResume(base(next, { cache, workspace: "/other" }))).reason, "no-entry");
    assert.equal((await planResume(base(next, { cache }))).mode, "incremental");
  });
});
