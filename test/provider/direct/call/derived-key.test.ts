import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { generateText, type ModelMessage, stepCountIs, streamText } from "ai";
import { emulatorProvider, hostTools, withEmulator } from "../../../support/emulator.ts";
import { createSnapshotFileStore } from "../../../../src/adapters/node/files/snapshot-file-store.ts";
import type { CursorEmulator, RunRecord } from "../../../../src/testing/mod.ts";
import type { CursorProviderSettings } from "../../../../src/provider/settings/cursor-settings.ts";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import {
  derivedKey,
  firstRealUserMessage,
} from "../../../../src/provider/direct/call/derived-key.ts";
import {
  MAX_FORK_DEPTH,
  resolveDerivedKey,
} from "../../../../src/provider/direct/turn-plan/derived-conversation.ts";
import { promptDigests } from "../../../../src/provider/direct/call/prompt-digests.ts";
import { Conversation } from "../../../../src/conversation/conversation.ts";

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

const quiet = { maxRetries: 0 } as const;

/** A chat as `useChat` keeps it: the whole message list goes with every call, no session id. */
class Chat {
  readonly messages: ModelMessage[] = [];
  constructor(
    readonly cursor: (settings?: CursorProviderSettings) => ReturnType<typeof emulatorProvider>,
    readonly model = "gpt-5",
    readonly options: { readonly workspace?: string } = {},
  ) {}

  /** Sends `text` with the history so far and keeps the reply. */
  async say(text: string, cursor = this.cursor()): Promise<string> {
    this.messages.push({ role: "user", content: text });
    return await this.#answer(cursor);
  }

  /** Sends the history again without the last reply (useChat's regenerate). */
  async regenerate(): Promise<string> {
    this.messages.pop();
    return await this.#answer(this.cursor());
  }

  /** Replaces the user message at `index` and drops what followed it (an edit). */
  async edit(index: number, text: string): Promise<string> {
    this.messages.splice(index);
    return await this.say(text);
  }

  async #answer(cursor: ReturnType<typeof emulatorProvider>): Promise<string> {
    const { text } = await generateText({
      model: cursor(this.model),
      messages: [...this.messages],
      ...(this.options.workspace === undefined
        ? {}
        : { providerOptions: { cursor: { workspace: this.options.workspace } } }),
      ...quiet,
    });
    this.messages.push({ role: "assistant", content: text });
    return text;
  }
}

/** What Cursor's model saw in a Run's last model call (the checkpoint's history and this turn). */
function context(run: RunRecord | undefined): string {
  return (run?.modelCalls[run.modelCalls.length - 1]?.context ?? []).join("\n");
}

function lastRun(emulator: CursorEmulator): RunRecord {
  const run = emulator.runs().at(-1);
  assert.ok(run !== undefined, "a Run was made");
  return run;
}

describe("conversations of calls without a session id", () => {
  it("keeps a chat warm after its first turn, sending only the new message", async () => {
    await withEmulator({}, async (emulator) => {
      const lines: string[] = [];
      const cursor = emulatorProvider(emulator, "sse", {
        debug: { enabled: true, line: (text) => lines.push(text) },
      });
      const chat = new Chat(() => cursor);
      await chat.say("Remember the word kumquat");
      const first = lastRun(emulator);
      assert.equal(first.continuity, "cold");
      await chat.say("What was the word?");
      await chat.say("Spell it backwards");
      const [, second, third] = emulator.runs();
      for (const run of [second, third]) {
        assert.equal(run?.continuity, "warm", "the emulator saw the previous checkpoint");
        assert.equal(run?.checkpointSupplied, true);
        assert.equal(run?.conversationId, first.conversationId);
      }
      assert.equal(second?.userText, "What was the word?", "only the new message is sent");
      assert.equal(third?.userText, "Spell it backwards");
      const seen = context(third);
      assert.match(seen, /kumquat[\s\S]*What was the word\?[\s\S]*Spell it backwards/);
      const userLines = (third?.modelCalls.at(-1)?.context ?? []).filter((l) =>
        l.startsWith("user:")
      );
      assert.equal(userLines.length, 3, `three user messages, the opener once: ${seen}`);
      const keys = lines.flatMap((l) => /^cache diagnosis: sessionKey=(\S+)/.exec(l)?.[1] ?? []);
      assert.equal(keys.length, 3, lines.join("\n"));
      assert.match(keys[0] ?? "", /^derived:[0-9a-f]{32}$/);
      assert.ok(keys.every((k) => k === keys[0]), "one derived key for the chat");
      assert.ok(!lines.some((l) => /kumquat/.test(l)), "no message text in the log");
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("keeps two chats with the same first message apart across interleaved turns", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const a = new Chat(() => cursor);
      const b = new Chat(() => cursor);
      await a.say("hi");
      await b.say("hi");
      await a.say("alpha one");
      await b.say("bravo one");
      await a.say("alpha two");
      await b.say("bravo two");
      await a.say("alpha three");
      const runs = emulator.runs();
      const aRuns = [runs[0], runs[2], runs[4], runs[6]];
      const bRuns = [runs[1], runs[3], runs[5]];
      const aIds = new Set(aRuns.slice(1).map((r) => r?.conversationId));
      const bIds = new Set(bRuns.slice(1).map((r) => r?.conversationId));
      assert.ok([...aIds].every((id) => !bIds.has(id)), "no Cursor conversation is shared");
      assert.equal(runs[4]?.continuity, "warm", "chat A continues its own conversation");
      assert.equal(runs[6]?.continuity, "warm");
      // Both first turns got the same reply: chat B still finds the conversation of its own.
      assert.equal(runs[3]?.continuity, "warm", "chat B finds its own conversation again");
      assert.equal(runs[3]?.conversationId, runs[1]?.conversationId);
      assert.equal(runs[3]?.userText, "bravo one");
      assert.equal(runs[5]?.continuity, "warm");
      assert.equal(runs[6]?.userText, "alpha three");
      assert.equal(runs[5]?.userText, "bravo two");
      const aSeen = context(runs[6]);
      const bSeen = context(runs[5]);
      assert.match(aSeen, /alpha one[\s\S]*alpha two[\s\S]*alpha three/);
      assert.doesNotMatch(aSeen, /bravo/, "chat A's context holds none of chat B's messages");
      assert.match(bSeen, /bravo one[\s\S]*bravo two/);
      assert.doesNotMatch(bSeen, /alpha/, "chat B's context holds none of chat A's messages");
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("reseeds only the chat whose earlier message was edited or regenerated", async () => {
    await withEmulator({}, async (emulator) => {
      const lines: string[] = [];
      const cursor = emulatorProvider(emulator, "sse", {
        debug: { enabled: true, line: (text) => lines.push(text) },
      });
      const a = new Chat(() => cursor);
      const b = new Chat(() => cursor);
      await a.say("hi");
      await a.say("first question");
      await b.say("hi");
      await b.say("other question");
      const bConversation = lastRun(emulator).conversationId;
      await a.edit(2, "edited question");
      const edited = lastRun(emulator);
      assert.equal(edited.continuity, "cold", "the edit reseeds chat A");
      assert.match(context(edited), /hi[\s\S]*edited question/);
      assert.doesNotMatch(context(edited), /first question|other question/);
      assert.ok(lines.some((l) => /^conversation reset: reason=derived-fork:edited /.test(l)));
      await a.say("after the edit");
      const afterEdit = lastRun(emulator);
      assert.equal(afterEdit.continuity, "warm", "the edited chat is warm again");
      assert.equal(afterEdit.conversationId, edited.conversationId);
      assert.equal(afterEdit.userText, "after the edit");
      await a.regenerate();
      const regenerated = lastRun(emulator);
      assert.equal(regenerated.continuity, "cold", "a regenerate reseeds chat A");
      assert.notEqual(regenerated.conversationId, afterEdit.conversationId);
      await a.say("after the regenerate");
      assert.equal(lastRun(emulator).continuity, "warm");
      assert.equal(lastRun(emulator).conversationId, regenerated.conversationId);
      await b.say("still chat B");
      const bRun = lastRun(emulator);
      assert.equal(bRun.continuity, "warm", "chat B was not touched");
      assert.equal(bRun.conversationId, bConversation);
      assert.doesNotMatch(context(bRun), /first question|edited question|after the/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("keeps a chat warm across two provider instances sharing a snapshot store", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-derived-"));
      const instance = () =>
        emulatorProvider(emulator, "sse", {
          conversationSnapshots: createSnapshotFileStore({ directory }),
        });
      const one = instance();
      const two = instance();
      const chat = new Chat(() => one);
      await chat.say("Remember the word kumquat", one);
      await chat.say("What was the word?", two);
      await chat.say("Thanks", one);
      const [first, second, third] = emulator.runs();
      assert.equal(second?.continuity, "warm", "the second instance restored the snapshot");
      assert.equal(second?.conversationId, first?.conversationId);
      assert.equal(second?.userText, "What was the word?");
      assert.equal(third?.continuity, "warm", "the first instance took the newer snapshot");
      assert.equal(third?.conversationId, first?.conversationId);
      assert.equal(third?.userText, "Thanks");
      assert.match(context(third), /kumquat[\s\S]*What was the word\?[\s\S]*Thanks/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("keeps two same-opener chats apart on two instances sharing a snapshot store", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-derived-"));
      const instance = () =>
        emulatorProvider(emulator, "sse", {
          conversationSnapshots: createSnapshotFileStore({ directory }),
        });
      const one = instance();
      const two = instance();
      const a = new Chat(() => one);
      const b = new Chat(() => two);
      await a.say("hi");
      await b.say("hi");
      await a.say("alpha one", two);
      await b.say("bravo one", one);
      await a.say("alpha two", one);
      await b.say("bravo two", two);
      const runs = emulator.runs();
      for (const run of runs.slice(2)) {
        assert.equal(run.continuity, "warm", `${run.userText} continued its own conversation`);
      }
      assert.equal(runs[4]?.conversationId, runs[0]?.conversationId);
      assert.equal(runs[5]?.conversationId, runs[1]?.conversationId);
      assert.notEqual(runs[0]?.conversationId, runs[1]?.conversationId);
      assert.doesNotMatch(context(runs[4]), /bravo/);
      assert.doesNotMatch(context(runs[5]), /alpha/);
      assert.match(context(runs[5]), /bravo one[\s\S]*bravo two/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("runs a title call beside the chat on an ephemeral conversation", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-derived-"));
      const cursor = emulatorProvider(emulator, "sse", {
        conversationSnapshots: createSnapshotFileStore({ directory }),
      });
      const chat = new Chat(() => cursor);
      await chat.say("hi");
      await generateText({
        model: cursor("gpt-5"),
        system: "You are a title generator. You output ONLY a thread title.",
        messages: [...chat.messages],
        ...quiet,
      });
      const title = lastRun(emulator);
      await chat.say("next");
      const next = lastRun(emulator);
      assert.equal(title.continuity, "cold");
      assert.notEqual(title.conversationId, emulator.runs()[0]?.conversationId);
      assert.equal(next.continuity, "warm", "the title call left the chat's conversation alone");
      assert.equal(next.conversationId, emulator.runs()[0]?.conversationId);
      assert.equal(next.userText, "next");
      assert.equal(readdirSync(directory).length, 1, "only the chat's conversation was stored");
    });
  });

  it("starts another conversation when the model or the workspace changes", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const base = new Chat(() => cursor, "gpt-5", { workspace: "/tmp/project-a" });
      await base.say("hi");
      await base.say("next");
      assert.equal(lastRun(emulator).continuity, "warm");
      const conversation = lastRun(emulator).conversationId;
      const otherModel = new Chat(() => cursor, "claude-4.5-sonnet", {
        workspace: "/tmp/project-a",
      });
      otherModel.messages.push(...base.messages);
      await otherModel.say("again");
      assert.equal(lastRun(emulator).continuity, "cold", "a model change is another chat");
      assert.notEqual(lastRun(emulator).conversationId, conversation);
      const otherWorkspace = new Chat(() => cursor, "gpt-5", { workspace: "/tmp/project-b" });
      otherWorkspace.messages.push(...base.messages);
      await otherWorkspace.say("again");
      assert.equal(lastRun(emulator).continuity, "cold", "a workspace change is another chat");
      assert.notEqual(lastRun(emulator).conversationId, conversation);
      await base.say("back in project a");
      assert.equal(lastRun(emulator).continuity, "warm", "the first chat is untouched");
      assert.equal(lastRun(emulator).conversationId, conversation);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("hands a tool step's results to its held Run and stays warm after it", async () => {
    await withEmulator({}, async (emulator) => {
      const directory = mkdtempSync(join(tmpdir(), "cursor-derived-tools-"));
      const cursor = emulatorProvider(emulator);
      const toolTurn = async (messages: ModelMessage[]) => {
        const result = streamText({
          model: cursor("gpt-5"),
          messages,
          tools: hostTools(directory),
          stopWhen: stepCountIs(5),
          providerOptions: { cursor: { workspace: directory } },
          ...quiet,
        });
        await result.consumeStream();
        return [...messages, ...(await result.response).messages];
      };
      // Two chats with the same opener, each running a shell step in its second turn.
      let a = await toolTurn([{ role: "user", content: "hi" }]);
      let b = await toolTurn([{ role: "user", content: "hi" }]);
      a = await toolTurn([...a, { role: "user", content: "::shell printf 'alpha-out'" }]);
      b = await toolTurn([...b, { role: "user", content: "::shell printf 'bravo-out'" }]);
      assert.equal(emulator.runs().length, 4, "each tool result went back on its held Run");
      a = await toolTurn([...a, { role: "user", content: "alpha done" }]);
      b = await toolTurn([...b, { role: "user", content: "bravo done" }]);
      const [aNext, bNext] = emulator.runs().slice(4);
      assert.equal(aNext?.continuity, "warm");
      assert.equal(aNext?.userText, "alpha done");
      assert.equal(bNext?.userText, "bravo done");
      assert.match(context(aNext), /alpha-out[\s\S]*alpha done/);
      assert.doesNotMatch(context(aNext), /bravo/);
      assert.match(context(bNext), /bravo-out[\s\S]*bravo done/);
      assert.doesNotMatch(context(bNext), /alpha/);
      assert.deepEqual(emulator.violations(), []);
    });
  });
});
