/**
 * Composes the beats of one run from its directives: init and the prompt echo,
 * optional thinking, text before tools, tool calls (sequential or parallel), the
 * reply, the final cumulative assistant message and the result, with the failure,
 * stall and noise variants spliced in where the directives ask.
 *
 * @module
 */
import type { FakeArgs } from "./cli-args.ts";
import type { Beat } from "./beats.ts";
import type { FakeChat } from "./chat-store.ts";
import { shortHash } from "./chat-store.ts";
import { type Directive, type NewestUserText, unescape } from "../directives/directive-language.ts";
import type { FakeScenario } from "./scenario.ts";
import {
  assistantEvent,
  chunksOf,
  type EventContext,
  type FakeUsage,
  initEvent,
  resultEvent,
  thinkingEvent,
  toolEvent,
  userEvent,
} from "./stream-events.ts";
import {
  AUTH_REQUIRED_TEXT,
  chatNotFoundText,
  modelDisplayName,
  modelErrorText,
  NETWORK_TEXT,
  NO_PROGRESS_TEXT,
  OOM_TEXT,
  QUOTA_TEXT,
  RESUME_TRANSIENT_TEXT,
} from "./texts.ts";
import { type ToolSpec, toolSpecFor } from "./tool-specs.ts";

/** Everything one run is composed from. */
export interface ComposeInput {
  readonly args: FakeArgs;
  readonly chat: FakeChat;
  readonly previousPrompts: readonly string[];
  readonly prompt: string;
  readonly focus: NewestUserText;
  readonly directives: readonly Directive[];
  readonly scenario: FakeScenario;
  readonly cwd: string;
  readonly now: () => number;
  /** Fail with this stderr right after the init event (an `error-after-init` resume). */
  readonly failAfterInit?: string;
}

const EARLY_FAILURES: Readonly<Record<string, (input: ComposeInput) => string>> = {
  auth: () => AUTH_REQUIRED_TEXT,
  quota: () => QUOTA_TEXT,
  model: (input) => modelErrorText(input.args.model ?? "auto"),
  "resume-transient": () => RESUME_TRANSIENT_TEXT,
  "no-progress": () => NO_PROGRESS_TEXT,
  "resume-gone": (input) => chatNotFoundText(input.chat.id),
  // A chat that is gone, in a wording no classifier knows.
  "resume-gone-unrecognised": (input) =>
    `Error: Unable to load conversation state for ${input.chat.id}`,
};

/**
 * Composes the beats of a run.
 *
 * @param input The chat, prompt, directives and scenario.
 * @returns The beats, ending in an exit, a crash or a hang.
 */
export function composeRun(input: ComposeInput): Beat[] {
  const names = new Set(input.directives.map((directive) => directive.name));
  const failure = input.directives.find((directive) => directive.name === "fail")?.argument;
  if (names.has("hang")) return [{ kind: "hang" }];
  const early = failure === undefined ? undefined : EARLY_FAILURES[failure];
  if (early) return [{ kind: "stderr", text: `${early(input)}\n` }, { kind: "exit", code: 1 }];

  const context: EventContext = { sessionId: input.chat.id, now: input.now };
  const beats: Beat[] = [];
  const event = (value: Beat & { kind: "event" }) => beats.push(value);
  event({
    kind: "event",
    value: initEvent(context, { cwd: input.cwd, model: modelDisplayName(input.args.model) }),
  });
  event({ kind: "event", value: userEvent(context, input.prompt) });
  if (input.failAfterInit !== undefined) {
    beats.push({ kind: "stderr", text: `${input.failAfterInit}\n` }, { kind: "exit", code: 1 });
    return beats;
  }
  if (names.has("malformed")) beats.push(...malformedBeats(context));
  if (names.has("background")) beats.push({ kind: "background" });
  if (names.has("hang-after-init")) return [...beats, { kind: "hang" }];
  if (names.has("noise")) beats.push(...noiseEvents(context));
  if (failure === "oom") {
    return [...beats, { kind: "stderr", text: `${OOM_TEXT}\n` }, {
      kind: "crash",
      signal: "SIGABRT",
    }];
  }
  if (failure === "result-error") {
    const result = resultEvent(context, {
      text: "Agent failed: internal error",
      isError: true,
      durationMs: 5,
    });
    return [...beats, { kind: "event", value: result }, { kind: "exit", code: 1 }];
  }
  return [...beats, ...turnBeats(input, context, names, failure)];
}

function turnBeats(
  input: ComposeInput,
  context: EventContext,
  names: ReadonlySet<string>,
  failure?: string,
): Beat[] {
  const beats: Beat[] = [];
  const think = input.directives.find((directive) => directive.name === "think");
  if (think) {
    for (const chunk of chunksOf(think.argument)) {
      beats.push({ kind: "event", value: thinkingEvent(context, chunk) });
    }
    beats.push({ kind: "event", value: thinkingEvent(context) });
  }
  const turn = input.chat.prompts.length;
  const tools = input.directives
    .map((directive, index) =>
      toolSpecFor(directive, index, {
        force: input.args.force,
        badCallIds: names.has("bad-call-id"),
        idPrefix: `call_${shortHash(input.chat.id)}_${turn}`,
      })
    )
    .filter((spec): spec is ToolSpec => spec !== undefined);
  const before = tools.length > 0 || names.has("lost-completion")
    ? "Let me check that with a tool. "
    : "";
  const modelCallId = `${input.chat.id.slice(0, 8)}-${turn}`;
  if (before !== "") beats.push(...textBeats(input, context, before, modelCallId));
  beats.push(...toolBeats(input, context, tools, names.has("parallel"), modelCallId));
  if (names.has("lost-completion")) beats.push(...lostCompletion(input, context, modelCallId));
  const reply = replyText(input);
  const stop = names.has("stall")
    ? "hang"
    : names.has("die")
    ? "die"
    : failure === "network"
    ? "network"
    : undefined;
  if (stop !== undefined) {
    return [...beats, ...textBeats(input, context, reply.slice(0, 12)), ...stopBeats(stop)];
  }
  beats.push(...textBeats(input, context, reply));
  if (input.args.streamPartialOutput) {
    beats.push({
      kind: "event",
      value: assistantEvent(context, before + reply, { kind: "final" }),
    });
  }
  if (names.has("malformed")) {
    beats.push({
      kind: "event",
      value: { type: "fancy_new_event", session_id: context.sessionId },
    });
  }
  const usage = names.has("no-usage") ? undefined : usageOf(input, before + reply);
  const result = resultEvent(context, {
    text: before + reply,
    isError: false,
    durationMs: 42,
    ...(usage ? { usage } : {}),
  });
  beats.push({ kind: "event", value: result });
  if (failure === "quota-after-output") {
    beats.push({ kind: "stderr", text: `${QUOTA_TEXT}\n` }, { kind: "exit", code: 1 });
  } else beats.push({ kind: "exit", code: 0 });
  return beats;
}

function textBeats(
  input: ComposeInput,
  context: EventContext,
  text: string,
  flushId?: string,
): Beat[] {
  if (!input.args.streamPartialOutput) {
    const shape = flushId === undefined
      ? { kind: "segment" as const }
      : { kind: "segment" as const, modelCallId: flushId };
    return [{ kind: "event", value: assistantEvent(context, text, shape) }];
  }
  const beats: Beat[] = chunksOf(text).map((chunk) => ({
    kind: "event",
    value: assistantEvent(context, chunk, { kind: "delta" }),
  }));
  if (flushId !== undefined) {
    beats.push({
      kind: "event",
      value: assistantEvent(context, text, { kind: "flush", modelCallId: flushId }),
    });
  }
  return beats;
}

function toolBeats(
  input: ComposeInput,
  context: EventContext,
  tools: readonly ToolSpec[],
  parallel: boolean,
  modelCallId: string,
): Beat[] {
  const pause: Beat = { kind: "sleep", ms: input.scenario.toolDelayMs };
  const started = (spec: ToolSpec): Beat => ({
    kind: "event",
    value: toolEvent(context, spec, false, modelCallId),
  });
  const completed = (spec: ToolSpec): Beat => ({
    kind: "event",
    value: toolEvent(context, spec, true, modelCallId),
  });
  if (tools.length === 0) return [];
  if (parallel) return [...tools.map(started), pause, ...[...tools].reverse().map(completed)];
  return tools.flatMap((spec) => [started(spec), pause, completed(spec)]);
}

function lostCompletion(input: ComposeInput, context: EventContext, modelCallId: string): Beat[] {
  const spec = toolSpecFor({ name: "semsearch", argument: "where is the config" }, 99, {
    force: input.args.force,
    badCallIds: false,
    idPrefix: `lost_${shortHash(input.chat.id)}_${input.chat.prompts.length}`,
  });
  if (spec === undefined) return [];
  const session = context.sessionId;
  return [
    { kind: "event", value: toolEvent(context, spec, false, modelCallId) },
    {
      kind: "event",
      value: { type: "connection", subtype: "reconnecting", attempt: 1, session_id: session },
    },
    {
      kind: "event",
      value: {
        type: "retry",
        subtype: "resuming",
        attempt: 2,
        checkpoint_turn_count: 1,
        session_id: session,
      },
    },
    {
      kind: "event",
      value: { type: "connection", subtype: "reconnected", attempt: 1, session_id: session },
    },
  ];
}

function stopBeats(stop: "hang" | "die" | "network"): Beat[] {
  if (stop === "hang") return [{ kind: "hang" }];
  if (stop === "die") return [{ kind: "crash", signal: "SIGKILL" }];
  return [{ kind: "stderr", text: `${NETWORK_TEXT}\n` }, { kind: "exit", code: 1 }];
}

function malformedBeats(context: EventContext): Beat[] {
  return [
    { kind: "raw", text: "T: fake cursor-agent banner (not JSON)" },
    {
      kind: "raw",
      text:
        '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"br',
    },
    { kind: "raw", text: "[1,2,3]" },
    { kind: "raw", text: '{"no_type":true}' },
    {
      kind: "event",
      value: {
        type: "interaction_query",
        subtype: "request",
        query_type: "permission",
        session_id: context.sessionId,
      },
    },
  ];
}

function noiseEvents(context: EventContext): Beat[] {
  const session = context.sessionId;
  return [
    {
      kind: "event",
      value: {
        type: "system",
        subtype: "task_notification",
        task_id: "t1",
        title: "Indexing",
        detail: "",
        session_id: session,
      },
    },
    {
      kind: "event",
      value: {
        type: "retry",
        subtype: "starting",
        attempt: 2,
        is_resume: true,
        session_id: session,
      },
    },
    {
      kind: "event",
      value: { type: "connection", subtype: "reconnected", attempt: 2, session_id: session },
    },
  ];
}

function replyText(input: ComposeInput): string {
  const explicit = input.directives.find((directive) => directive.name === "text");
  if (explicit) return unescape(explicit.argument);
  const turn = input.chat.prompts.length;
  const opener = input.focus.toolContinuation ? "Tool results received." : "Done.";
  const codeword = lastCodeword(input.chat.prompts);
  const memory = codeword === undefined ? "" : ` I remember codeword ${codeword}.`;
  return `${opener} Chat ${input.chat.id} has seen ${turn} prompt${
    turn === 1 ? "" : "s"
  }.${memory}`;
}

function lastCodeword(prompts: readonly string[]): string | undefined {
  let found: string | undefined;
  for (const prompt of prompts) {
    for (const match of prompt.matchAll(/\bcodeword\s+([A-Z][A-Z0-9_-]*)\b/g)) found = match[1];
  }
  return found;
}

function usageOf(input: ComposeInput, output: string): FakeUsage {
  const tokens = (text: string) => Math.ceil(new TextEncoder().encode(text).length / 4);
  const earlier = input.previousPrompts.reduce((sum, prompt) => sum + tokens(prompt), 0);
  return {
    inputTokens: tokens(input.prompt),
    outputTokens: tokens(output),
    cacheReadTokens: earlier,
    cacheWriteTokens: earlier === 0 ? tokens(input.prompt) : 0,
  };
}
