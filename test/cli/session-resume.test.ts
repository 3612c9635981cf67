/**
 * Session resume through the AI SDK with the fake `cursor-agent` on PATH: what each
 * turn sends (argv and stdin, as the fake recorded them) and when a chat is reused.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { jsonSchema, type ModelMessage, streamText, tool, type ToolSet } from "ai";
import { flagValue, setupFake } from "./helpers.ts";

const SYSTEM = "You are a coding agent working in a repository.";

const bash = tool({
  description: "Runs a shell command.",
  inputSchema: jsonSchema<{ command: string; description: string }>({
    type: "object",
    properties: { command: { type: "string" }, description: { type: "string" } },
    required: ["command", "description"],
  }),
  execute: ({ command }) => Promise.resolve(`ran ${command}`),
});

type Model = ReturnType<Awaited<ReturnType<typeof setupFake>>["model"]>;

/** Runs one turn and appends the reply to the history. */
async function turn(
  model: Model,
  history: ModelMessage[],
  userText: string,
  tools: ToolSet = { bash },
): Promise<string> {
  history.push({ role: "user", content: userText });
  const result = streamText({ model, system: SYSTEM, messages: history, tools });
  const text = await result.text;
  history.push(...(await result.response).messages);
  return text;
}

describe("session resume with the fake cursor-agent", () => {
  it("sends the full prompt first, then --resume <chat> with only the new message", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword BETA.");
      const reply = await turn(model, history, "What was the codeword?");
      const [first, second] = await fake.starts();
      assert.equal(flagValue(first?.argv, "--resume"), undefined);
      assert.match(first?.stdin ?? "", /^SYSTEM: You are a coding agent/);
      assert.match(first?.stdin ?? "", /HOST TOOLS:[\s\S]*- bash: Runs a shell command\./);
      assert.match(first?.stdin ?? "", /USER: Remember codeword BETA\./);
      assert.equal(flagValue(second?.argv, "--resume"), first?.chatId);
      assert.equal(second?.stdin, "What was the codeword?");
      assert.equal(second?.chatId, first?.chatId);
      assert.match(reply, /has seen 2 prompts\. I remember codeword BETA\./);
    } finally {
      await fake.cleanup();
    }
  });

  it("without the switch every turn starts a fresh chat with the full prompt", async () => {
    const fake = await setupFake({ CURSOR_ACP_SESSION_RESUME: "off" });
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword GAMMA.");
      const reply = await turn(model, history, "What was the codeword?");
      const [first, second] = await fake.starts();
      assert.equal(flagValue(second?.argv, "--resume"), undefined);
      assert.notEqual(second?.chatId, first?.chatId);
      assert.match(
        second?.stdin ?? "",
        /USER: Remember codeword GAMMA\.[\s\S]*USER: What was the codeword\?/,
      );
      assert.match(reply, /has seen 1 prompt\. I remember codeword GAMMA\./);
    } finally {
      await fake.cleanup();
    }
  });

  it("a changed tool list starts a fresh chat", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "First question");
      const read = tool({
        description: "Reads a file.",
        inputSchema: jsonSchema<{ filePath: string }>({
          type: "object",
          properties: { filePath: { type: "string" } },
        }),
        execute: ({ filePath }) => Promise.resolve(`contents of ${filePath}`),
      });
      await turn(model, history, "Second question", { bash, read });
      const [first, second] = await fake.starts();
      assert.equal(flagValue(second?.argv, "--resume"), undefined);
      assert.notEqual(second?.chatId, first?.chatId);
      assert.match(second?.stdin ?? "", /- read: Reads a file\./);
      assert.ok(fake.logLines.some((line) => line.includes("reason=tools-changed")));
    } finally {
      await fake.cleanup();
    }
  });

  it("a changed Task subagent list (inside the task tool's description) starts a fresh chat", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const task = (agents: string) =>
        tool({
          description: `Launch a subagent.\nAvailable agent types:\n${agents}`,
          inputSchema: jsonSchema<{ prompt: string }>({
            type: "object",
            properties: { prompt: { type: "string" } },
          }),
          execute: () => Promise.resolve("subagent done"),
        });
      const history: ModelMessage[] = [];
      await turn(model, history, "Plan the work", { bash, task: task("- general") });
      await turn(model, history, "Go on", { bash, task: task("- general\n- explore") });
      const [, second] = await fake.starts();
      assert.equal(flagValue(second?.argv, "--resume"), undefined);
    } finally {
      await fake.cleanup();
    }
  });

  it("a different model or a different workspace starts a fresh chat", async () => {
    const fake = await setupFake();
    try {
      const history: ModelMessage[] = [];
      await turn(fake.model("auto"), history, "Hello there");
      await turn(fake.model("gpt-5"), history, "Same conversation, other model");
      const otherWorkspace = `${fake.workspace}-other`;
      await import("node:fs/promises").then((fs) => fs.mkdir(otherWorkspace, { recursive: true }));
      await turn(
        fake.model("gpt-5", { workspace: otherWorkspace }),
        history,
        "Same conversation, other folder",
      );
      const starts = await fake.starts();
      assert.equal(starts.length, 3);
      for (const start of starts) assert.equal(flagValue(start.argv, "--resume"), undefined);
      assert.equal(new Set(starts.map((start) => start.chatId)).size, 3);
      assert.equal(flagValue(starts[2]?.argv, "--workspace"), otherWorkspace);
    } finally {
      await fake.cleanup();
    }
  });

  it("two conversations with the same opener that diverge never share a chat", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const a: ModelMessage[] = [];
      const b: ModelMessage[] = [];
      await turn(model, a, "Let us start");
      await turn(model, a, "Branch A: remember codeword ALPHA");
      await turn(model, b, "Let us start");
      await turn(model, b, "Branch B: what is the codeword?");
      await turn(model, a, "Branch A again: what is the codeword?");
      const starts = await fake.starts();
      const chatOf = (index: number) => starts[index]?.chatId;
      const resumeOf = (index: number) => flagValue(starts[index]?.argv, "--resume");
      assert.equal(resumeOf(1), chatOf(0), "branch A continues its own chat");
      assert.equal(
        resumeOf(2),
        undefined,
        "branch B's first turn has nothing new for branch A's chat",
      );
      assert.notEqual(resumeOf(3), chatOf(1), "branch B never continues branch A's chat");
      assert.notEqual(resumeOf(4), chatOf(3), "branch A never continues branch B's chat");
      const bChats = new Set([chatOf(2), chatOf(3)]);
      assert.ok(!bChats.has(chatOf(0)), "branch B never ran in branch A's chat");
      assert.ok(!bChats.has(chatOf(4)), "branch A never ran in branch B's chat");
    } finally {
      await fake.cleanup();
    }
  });

  it("an entry older than an hour is not used", async () => {
    const fake = await setupFake();
    try {
      let now = Date.parse("2026-01-01T10:00:00Z");
      const model = fake.model("auto", { clock: () => now });
      const history: ModelMessage[] = [];
      await turn(model, history, "Hello");
      now += 30 * 60 * 1000;
      await turn(model, history, "Half an hour later");
      now += 61 * 60 * 1000;
      await turn(model, history, "An hour and a minute after the last turn");
      const starts = await fake.starts();
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId);
      assert.equal(flagValue(starts[2]?.argv, "--resume"), undefined);
      assert.ok(fake.logLines.some((line) => line.includes("reason=expired")));
    } finally {
      await fake.cleanup();
    }
  });

  it("an unsafe chat id is never cached nor passed to --resume", async () => {
    const fake = await setupFake({ FAKE_CURSOR_AGENT_CHAT_ID: "bad id;$(touch pwned)" });
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Hello");
      await turn(model, history, "Again");
      const starts = await fake.starts();
      assert.equal(starts[0]?.chatId, "bad id;$(touch pwned)");
      for (const start of starts) {
        assert.equal(flagValue(start.argv, "--resume"), undefined);
        assert.ok(!(start.argv ?? []).some((arg) => arg.includes("pwned")));
      }
      assert.equal(fake.cache.size, 0);
      assert.ok(fake.logLines.some((line) => line.includes("is not safe; not cached")));
    } finally {
      await fake.cleanup();
    }
  });

  it("a resume-specific error evicts the chat and the turn reruns fresh with the full prompt", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword DELTA");
      await fake.scenario({ forgetChats: true, unknownResume: "error" });
      const reply = await turn(model, history, "What was it?");
      await fake.scenario({});
      await turn(model, history, "And now?");
      const starts = await fake.starts();
      const records = await fake.records();
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId);
      assert.ok(
        records.some((record) =>
          record.event === "end" && record.pid === starts[1]?.pid && record.exitCode === 1
        ),
      );
      assert.equal(
        flagValue(starts[2]?.argv, "--resume"),
        undefined,
        "the evicted chat is not retried",
      );
      assert.match(
        starts[2]?.stdin ?? "",
        /USER: Remember codeword DELTA[\s\S]*USER: What was it\?/,
      );
      assert.match(reply, /I remember codeword DELTA/);
      assert.equal(
        flagValue(starts[3]?.argv, "--resume"),
        starts[2]?.chatId,
        "the new chat is cached",
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("a network error keeps the cached chat", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword EPSILON");
      await fake.scenario({ directives: "::fail network" });
      history.push({ role: "user", content: "Next step" });
      const failed = streamText({
        model,
        system: SYSTEM,
        messages: history,
        tools: { bash },
        onError: () => {},
      });
      const errors: unknown[] = [];
      for await (const part of failed.fullStream) {
        if (part.type === "error") errors.push(part.error);
      }
      assert.equal(errors.length, 1);
      assert.match(String((errors[0] as Error).message), /ECONNREFUSED/);
      await fake.scenario({});
      const retried = streamText({ model, system: SYSTEM, messages: history, tools: { bash } });
      assert.match(await retried.text, /has seen 3 prompts\. I remember codeword EPSILON/);
      const starts = await fake.starts();
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId);
      assert.equal(
        flagValue(starts[2]?.argv, "--resume"),
        starts[0]?.chatId,
        "still resumed after the network error",
      );
      assert.equal(starts[2]?.stdin, "Next step");
    } finally {
      await fake.cleanup();
    }
  });

  it("a resume answered with another chat id is stopped, evicted and rerun with the full prompt", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Remember codeword ZETA");
      await fake.scenario({ forgetChats: true, unknownResume: "silent-new" });
      const reply = await turn(model, history, "What was it?");
      await fake.scenario({});
      await turn(model, history, "Thanks");
      const starts = await fake.starts();
      assert.equal(flagValue(starts[1]?.argv, "--resume"), starts[0]?.chatId);
      assert.equal(starts[1]?.stdin, "What was it?");
      assert.notEqual(
        starts[1]?.chatId,
        starts[0]?.chatId,
        "the CLI silently started another chat",
      );
      assert.equal(flagValue(starts[2]?.argv, "--resume"), undefined);
      assert.match(
        starts[2]?.stdin ?? "",
        /USER: Remember codeword ZETA[\s\S]*USER: What was it\?/,
      );
      assert.doesNotMatch(
        reply,
        new RegExp(String(starts[1]?.chatId)),
        "nothing of the stray run reached the host",
      );
      assert.match(reply, /I remember codeword ZETA/);
      assert.equal(flagValue(starts[3]?.argv, "--resume"), starts[2]?.chatId);
    } finally {
      await fake.cleanup();
    }
  });

  it("the 65th conversation evicts the least recently used one", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const conversations: ModelMessage[][] = Array.from({ length: 65 }, () => []);
      const opener = (index: number) => `Conversation ${index} opens`;
      await turn(model, conversations[0] ?? [], opener(0));
      for (let start = 1; start < 64; start += 8) {
        const batch = [];
        for (let index = start; index < Math.min(start + 8, 64); index++) {
          batch.push(turn(model, conversations[index] ?? [], opener(index)));
        }
        await Promise.all(batch);
      }
      assert.equal(fake.cache.size, 64);
      await turn(model, conversations[64] ?? [], opener(64));
      assert.equal(fake.cache.size, 64);
      await turn(model, conversations[1] ?? [], "Second turn of conversation 1");
      await turn(model, conversations[0] ?? [], "Second turn of conversation 0");
      const starts = await fake.starts();
      const second1 = starts.at(-2);
      const second0 = starts.at(-1);
      const first1 = starts.find((start) =>
        start.stdin?.includes(opener(1)) && !start.stdin.includes("Second")
      );
      assert.equal(
        flagValue(second1?.argv, "--resume"),
        first1?.chatId,
        "a recent conversation still resumes",
      );
      assert.equal(
        flagValue(second0?.argv, "--resume"),
        undefined,
        "the oldest conversation was evicted",
      );
    } finally {
      await fake.cleanup();
    }
  });

  it("a turn in which Cursor ran a tool itself still resumes incrementally", async () => {
    const fake = await setupFake();
    try {
      const model = fake.model();
      const history: ModelMessage[] = [];
      await turn(model, history, "Search first\n::semsearch config loader");
      assert.ok(
        history.some((message) =>
          message.role === "assistant" && JSON.stringify(message).includes("cursor_semSearch")
        ),
      );
      await turn(model, history, "Now summarise");
      const [first, second] = await fake.starts();
      assert.equal(flagValue(second?.argv, "--resume"), first?.chatId);
      assert.equal(second?.stdin, "Now summarise");
    } finally {
      await fake.cleanup();
    }
  });
});
