/**
 * The CLI backend's resume cache across restarts, with the fake `cursor-agent`: a new
 * provider instance (new in-memory cache) over the same file resumes the same chat.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type ModelMessage, streamText } from "ai";
import { flagValue, setupFake } from "../cli/helpers.ts";
import { createResumeCache } from "../../src/cli/resume-cache.ts";
import { createResumeCacheFile } from "../../src/adapters/node/files/resume-store.ts";
import { COMPACTION_SYSTEM_PROMPT } from "./fixtures/opencode-prompts.ts";

const SYSTEM = "You are a coding agent working in a repository.";

type Fake = Awaited<ReturnType<typeof setupFake>>;

/** A model as a freshly started process builds it: a new cache over the shared file. */
function restartedModel(fake: Fake) {
  return fake.model("auto", {
    resumeCache: createResumeCache(),
    resumeFile: createResumeCacheFile({ path: join(fake.dir, "resume.json") }),
  });
}

async function turn(
  model: ReturnType<Fake["model"]>,
  history: ModelMessage[],
  userText: string,
): Promise<{ text: string; errors: unknown[] }> {
  history.push({ role: "user", content: userText });
  const result = streamText({ model, system: SYSTEM, messages: history, onError: () => {} });
  const errors: unknown[] = [];
  let text = "";
  for await (const part of result.fullStream) {
    if (part.type === "error") errors.push(part.error);
    if (part.type === "text-delta") text += part.text;
  }
  if (errors.length === 0) history.push(...(await result.response).messages);
  else history.pop();
  return { text, errors };
}

describe("CLI resume cache across restarts", () => {
  it("a restarted provider resumes the same chat with only the new message; the file is 0600", async () => {
    const fake = await setupFake();
    try {
      const history: ModelMessage[] = [];
      await turn(restartedModel(fake), history, "Remember codeword OMEGA.");
      const path = join(fake.dir, "resume.json");
      if (process.platform !== "win32") assert.equal(statSync(path).mode & 0o777, 0o600);
      const reply = await turn(restartedModel(fake), history, "What was the codeword?");
      const [first, second] = await fake.starts();
      assert.equal(flagValue(second?.argv, "--resume"), first?.chatId);
      assert.equal(second?.stdin, "What was the codeword?");
      assert.match(reply.text, /I remember codeword OMEGA/);
      assert.ok(fake.logLines.some((l) => /resume cache restored entries=1 rejected=0/.test(l)));
    } finally {
      await fake.cleanup();
    }
  });

  const damaged: [string, (text: string) => string, RegExp][] = [
    ["a corrupt file", (t) => t.slice(0, t.length / 2), /resume cache invalid reason=not-json/],
    [
      "an expired entry",
      (t) => t.replace(/"updatedAtMs":\d+/, `"updatedAtMs":${Date.now() - 61 * 60 * 1000}`),
      /resume cache restored entries=0 rejected=1/,
    ],
    [
      "an unsafe chat id",
      (t) => t.replace(/"chatId":"[^"]+"/, '"chatId":"--force; rm"'),
      /resume cache restored entries=0 rejected=1/,
    ],
    ["a foreign version", (t) => t.replace('"version":1', '"version":7'), /reason=foreign-version/],
  ];
  for (const [label, damage, logged] of damaged) {
    it(`${label} starts a fresh chat with the full prompt, and the file is replaced`, async () => {
      const fake = await setupFake();
      try {
        const history: ModelMessage[] = [];
        await turn(restartedModel(fake), history, "Remember codeword SIGMA.");
        const path = join(fake.dir, "resume.json");
        writeFileSync(path, damage(readFileSync(path, "utf8")), { mode: 0o600 });
        const reply = await turn(restartedModel(fake), history, "What was the codeword?");
        const [, second] = await fake.starts();
        assert.equal(flagValue(second?.argv, "--resume"), undefined);
        assert.match(second?.stdin ?? "", /USER: Remember codeword SIGMA\.[\s\S]*USER: What/);
        assert.match(reply.text, /codeword SIGMA/);
        assert.ok(fake.logLines.some((l) => logged.test(l)), fake.logLines.join("\n"));
        const replaced = JSON.parse(readFileSync(path, "utf8"));
        assert.equal(replaced.entries[0][1].chatId, second?.chatId, "the new chat was written");
      } finally {
        await fake.cleanup();
      }
    });
  }

  it("a file others can read is not trusted", { skip: process.platform === "win32" }, async () => {
    const fake = await setupFake();
    try {
      const history: ModelMessage[] = [];
      await turn(restartedModel(fake), history, "Remember codeword TAU.");
      const path = join(fake.dir, "resume.json");
      chmodSync(path, 0o644);
      await turn(restartedModel(fake), history, "What was the codeword?");
      const [, second] = await fake.starts();
      assert.equal(flagValue(second?.argv, "--resume"), undefined);
      assert.ok(fake.logLines.some((l) => /resume cache invalid reason=wrong-mode-644/.test(l)));
      assert.equal(statSync(path).mode & 0o777, 0o600, "rewritten owner-only");
    } finally {
      await fake.cleanup();
    }
  });

  it("a resume failing before init in an unknown wording evicts the chat; a quota failure keeps it", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword KAPPA.");
      await fake.scenario({ directives: "::fail quota" });
      const quota = await turn(model, history, "Next?");
      assert.equal(quota.errors.length, 1);
      await fake.scenario({ directives: "::fail resume-gone-unrecognised" });
      const gone = await turn(model, history, "Next?");
      assert.equal(gone.errors.length, 1);
      assert.match(String((gone.errors[0] as Error).message), /Unable to load conversation state/);
      await fake.scenario({});
      await turn(model, history, "Next?");
      const starts = await fake.starts();
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId, "quota: resumed");
      assert.equal(flagValue(starts[2]?.argv, "--resume"), starts[0]?.chatId, "kept after quota");
      assert.equal(flagValue(starts[3]?.argv, "--resume"), undefined, "evicted: fresh chat");
      assert.ok(
        fake.logLines.some((l) => /evicted cached chat: resume failed before init/.test(l)),
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("the CLI's 'repeated resume attempts made no progress' keeps the chat, and the host may retry", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword KAPPA.");
      await fake.scenario({ directives: "::fail no-progress" });
      const stalled = await turn(model, history, "Next?");
      assert.equal(stalled.errors.length, 1);
      const error = stalled.errors[0] as Error & { isRetryable?: boolean };
      assert.match(error.message, /repeated resume attempts made no progress/);
      assert.equal(error.isRetryable, true, "transient: the host may retry the turn");
      await fake.scenario({});
      await turn(model, history, "Next?");
      const starts = await fake.starts();
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId, "resumed");
      assert.equal(
        flagValue(starts[2]?.argv, "--resume"),
        starts[0]?.chatId,
        "the chat was kept: the next turn resumes it with only the new messages",
      );
      assert.ok(
        !fake.logLines.some((l) => /evicted cached chat/.test(l)),
        fake.logLines.join("\n"),
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("OpenCode 1.18.33's compaction request neither resumes nor replaces the conversation's chat", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword RHO.");
      const compaction = streamText({
        model,
        system: COMPACTION_SYSTEM_PROMPT,
        messages: [{ role: "user", content: "Summarize.\nRemember codeword RHO." }],
      });
      await compaction.text;
      await turn(model, history, "What was the codeword?");
      const [first, compact, third] = await fake.starts();
      assert.equal(flagValue(compact?.argv, "--resume"), undefined, "compaction runs fresh");
      assert.equal(flagValue(third?.argv, "--resume"), first?.chatId, "the real chat is kept");
      assert.equal(third?.stdin, "What was the codeword?");
      assert.equal(fake.cache.size, 1, "compaction took no resume slot");
    } finally {
      await fake.cleanup();
    }
  });
});
