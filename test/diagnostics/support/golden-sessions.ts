/**
 * Scripted sessions for the runbook golden test: each writes its lines into one debug
 * log the way a person's OpenCode session would (emulator Runs, a restart, compaction, a
 * fault, an unpriced model, and a scripted Run for what the emulator never does).
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { generateText, type ModelMessage, stepCountIs, streamText } from "ai";
import { createNodeGitRunner } from "../../../src/adapters/node/process/git-runner.ts";
import type { DebugLogger } from "../../../src/core/logger.ts";
import type { InteractionUpdateSchema } from "../../../src/gen/agent/v1/interaction_update_pb.ts";
import { createCursorProvider } from "../../../src/provider/cursor-provider.ts";
import type { CursorProviderSettings } from "../../../src/provider/settings/cursor-settings.ts";
import type { GitRunner } from "../../../src/agent-run/git-facts.ts";
import { createMemorySnapshotStore } from "../../../src/snapshot/store.ts";
import type { CursorEmulator } from "../../../src/testing/mod.ts";
import {
  COMPACTION_CONTINUE_TEXT,
  COMPACTION_SYSTEM_PROMPT,
} from "../../continuity/fixtures/opencode-prompts.ts";
import { hostTools } from "../../support/emulator.ts";
import { declaredBash } from "../../recovery/support.ts";
import { createScriptedTransport, type ScriptedServer } from "../../support/scripted-transport.ts";

const SYSTEM = "You are a coding agent working in a repository.";

/** A git repository with one commit, as the workspace. */
export function gitWorkspace(dir: string): void {
  const git = (...args: string[]) =>
    spawnSync("git", args, { cwd: dir, encoding: "utf8", timeout: 10_000 });
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "demo\n");
  git("add", "README.md");
  git("-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-qm", "init");
}

/** An OpenCode-like chat: occupancy usage, host tools, one session key, history kept. */
function chat(
  cursor: ReturnType<typeof createCursorProvider>,
  sessionId: string,
  dir: string,
) {
  const messages: ModelMessage[] = [];
  return {
    messages,
    async send(text: string, model = "gpt-5"): Promise<void> {
      messages.push({ role: "user", content: text });
      const result = streamText({
        model: cursor(model),
        system: SYSTEM,
        messages,
        tools: hostTools(dir),
        stopWhen: stepCountIs(6),
        providerOptions: { cursor: { sessionId } },
      });
      await result.text;
      messages.push(...(await result.response).messages);
    },
  };
}

/**
 * The emulator sessions: tools with a failed MCP call, a plan, warm turns, compaction and
 * its rebase, a foreign history, a replayed fault, an unpriced model, and a restart that
 * restores the conversation from its snapshot.
 */
export async function emulatorSessions(
  emulator: CursorEmulator,
  logger: DebugLogger,
  dir: string,
): Promise<void> {
  const snapshots = createMemorySnapshotStore();
  const settings: CursorProviderSettings = {
    apiKey: "crsr_test_key_0123456789",
    apiBaseURL: emulator.url,
    allowLoopback: true,
    env: {},
    debug: logger,
    usage: "occupancy",
    conversationSnapshots: snapshots,
    workspace: { workspaceRoot: dir },
  };
  const git = { git: () => createNodeGitRunner() };
  const cursor = createCursorProvider(settings, git);
  const main = chat(cursor, "ses_EXAMPLE", dir);
  await main.send("::mcp nonexistent_tool {}\n::shell echo one\n::text Done");
  await main.send("::plan Tidy: Step one");
  await main.send("Thanks");
  // Compaction (ephemeral), then the rebase on its summary.
  const summary = await generateText({
    model: cursor("gpt-5"),
    system: COMPACTION_SYSTEM_PROMPT,
    messages: [{ role: "user", content: "Summarize.\nThe conversation so far." }],
    providerOptions: { cursor: { sessionId: "ses_EXAMPLE" } },
  });
  main.messages.splice(0, main.messages.length, {
    role: "user",
    content: "What did we do so far?",
  }, { role: "assistant", content: summary.text });
  await main.send(COMPACTION_CONTINUE_TEXT);
  await main.send("And now?");
  // A second chat within 30 s takes the first discovery; Auto is unpriced.
  await chat(cursor, "ses_AUTO", dir).send("Hello", "default");
  // A replay-safe drop before any output: the Run is interrupted and rebased.
  await chat(cursor, "ses_FAULT", dir).send("::fault drop times=1\n::text Alpha one.");
  // A history this provider did not write reseeds the conversation.
  const foreign = chat(cursor, "ses_EXAMPLE", dir);
  await foreign.send("A different opener");
  // Stop during a tool, then type: the pending exec is cancelled and the Run drained.
  const asked: ModelMessage = { role: "user", content: "Edit\n::shell echo edited > notes.txt" };
  const stopped = streamText({
    model: cursor("gpt-5"),
    system: SYSTEM,
    messages: [asked],
    tools: { bash: declaredBash },
    providerOptions: { cursor: { sessionId: "ses_STOP" } },
  });
  await stopped.consumeStream();
  await streamText({
    model: cursor("gpt-5"),
    system: SYSTEM,
    messages: [asked, { role: "user", content: "::text Carrying on." }],
    tools: { bash: declaredBash },
    providerOptions: { cursor: { sessionId: "ses_STOP" } },
  }).text;
  // A restart: a new provider restores the conversation from its snapshot.
  const restarted = createCursorProvider(settings, git);
  const resumed = chat(restarted, "ses_EXAMPLE", dir);
  resumed.messages.push(...foreign.messages);
  await resumed.send("After the restart");
  await chat(restarted, "ses_NEW", dir).send("First words");
  // A tool result that comes back after a restart finds no held Run: rebuilt from history.
  await continuationAfterRestart(settings, dir);
}

/** A tool step held by one provider whose result reaches a restarted one. */
async function continuationAfterRestart(
  settings: CursorProviderSettings,
  dir: string,
): Promise<void> {
  const git = { git: () => createNodeGitRunner() };
  const before = createCursorProvider(settings, git);
  const first = chat(before, "ses_CONT", dir);
  await first.send("Hello");
  const asked: ModelMessage = { role: "user", content: "Edit\n::shell echo edited > notes.txt" };
  const options = {
    system: SYSTEM,
    tools: { bash: declaredBash },
    providerOptions: { cursor: { sessionId: "ses_CONT" } },
  };
  const step = streamText({
    model: before("gpt-5"),
    messages: [...first.messages, asked],
    ...options,
  });
  await step.consumeStream();
  const call = (await step.toolCalls)[0];
  if (call === undefined) throw new Error("Cursor asked for no tool");
  const after = createCursorProvider(settings, git);
  await streamText({
    model: after("gpt-5"),
    messages: [...first.messages, asked, ...(await step.response).messages, {
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "text", value: "edited" },
      }],
    }],
    ...options,
  }).text;
}

/** A git whose status never answers within its limit. */
const SLOW_STATUS_GIT: GitRunner = {
  run(args) {
    const command = args.join(" ");
    if (command === "rev-parse --show-toplevel") {
      return Promise.resolve({ kind: "ok", stdout: "/ws\n" });
    }
    if (command === "status --porcelain -b") return Promise.resolve({ kind: "timed-out" });
    return Promise.resolve({ kind: "failed", exitCode: 2 });
  },
};

/**
 * What the emulator never does, scripted: a CreatePlan call, a failed read, a checkpoint
 * that counts no rule tokens with an older breakdown, TurnEnded without cache read, Runs
 * that send no checkpoint (the previous turn's snapshot, or none at all); and a git whose
 * status times out.
 */
export async function scriptedSession(logger: DebugLogger): Promise<void> {
  let runs = 0;
  const cursor = createCursorProvider({
    accessToken: "test-token",
    agentBaseURL: "https://agent.cursor.sh",
    machineId: "a".repeat(64),
    transport: createScriptedTransport((server) =>
      ++runs === 1 ? planRunWithoutRules(server) : textRunWithoutCheckpoint(server)
    ),
    conversationSnapshots: false,
    debug: logger,
  }, { git: () => SLOW_STATUS_GIT });
  const messages: ModelMessage[] = [{ role: "user", content: "Plan it" }];
  const ask = async (sessionId: string) => {
    const result = streamText({
      model: cursor("gpt-5"),
      system: "Be brief.",
      messages,
      providerOptions: { cursor: { sessionId } },
    });
    await result.text;
    return (await result.response).messages;
  };
  messages.push(...await ask("ses_SCRIPTED"));
  messages.push({ role: "user", content: "Go on" });
  await ask("ses_SCRIPTED");
  messages.splice(0, messages.length, { role: "user", content: "Hi" });
  await ask("ses_BARE");
}

async function textRunWithoutCheckpoint(server: ScriptedServer): Promise<void> {
  await server.next((m) => m.message.case === "runRequest");
  const update = (message: UpdateInit) =>
    server.emit({ message: { case: "interactionUpdate", value: { message } } });
  update({ case: "textDelta", value: { text: "Sure" } });
  update({
    case: "turnEnded",
    value: { inputTokens: 900n, outputTokens: 5n, cacheReadTokens: 600n, cacheWriteTokens: 0n },
  });
  server.end();
}

type UpdateInit = NonNullable<MessageInitShape<typeof InteractionUpdateSchema>["message"]>;

async function planRunWithoutRules(server: ScriptedServer): Promise<void> {
  await server.next((m) => m.message.case === "runRequest");
  const update = (message: UpdateInit) =>
    server.emit({ message: { case: "interactionUpdate", value: { message } } });
  update({
    case: "toolCallStarted",
    value: { callId: "plan-1", toolCall: { tool: { case: "createPlanToolCall", value: {} } } },
  });
  update({
    case: "toolCallCompleted",
    value: {
      callId: "read-1",
      toolCall: {
        tool: {
          case: "readToolCall",
          value: {
            args: { path: "/ws/missing.ts" },
            result: { result: { case: "error", value: { errorMessage: "File not found" } } },
          },
        },
      },
    },
  });
  update({ case: "textDelta", value: { text: "Plan drafted" } });
  update({
    case: "turnEnded",
    value: { inputTokens: 4_000n, outputTokens: 20n, cacheReadTokens: 0n, cacheWriteTokens: 0n },
  });
  server.emit({
    message: {
      case: "conversationCheckpointUpdate",
      value: {
        tokenDetails: {
          usedTokens: 1_200,
          maxTokens: 200_000,
          breakdown: {
            totalUsedTokens: 1_000,
            categories: [
              { id: "system_prompt", label: "System prompt", estimatedTokens: 600 },
              { id: "rules", label: "Rules", estimatedTokens: 0 },
              { id: "conversation", label: "Conversation", estimatedTokens: 400 },
            ],
          },
        },
      },
    },
  });
  server.end();
}
