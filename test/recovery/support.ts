/** Shared pieces of the recovery tests: sessions, interrupted turns and the model's context. */
import assert from "node:assert/strict";
import {
  jsonSchema,
  type ModelMessage,
  stepCountIs,
  streamText,
  type Tool,
  tool,
  type ToolSet,
} from "ai";
import type { CursorEmulator } from "../../src/testing/mod.ts";
import type { emulatorProvider } from "../support/emulator.ts";

/** Provider options that file every call under one host session. */
export const session = (id: string): { providerOptions: { cursor: { sessionId: string } } } => ({
  providerOptions: { cursor: { sessionId: id } },
});

/** Calls fail fast: the tests count every Run themselves. */
export const quiet = { maxRetries: 0 } as const;

/** A user message. */
export const user = (text: string): ModelMessage => ({ role: "user", content: text });

/** An assistant message with text. */
export const assistant = (text: string): ModelMessage => ({ role: "assistant", content: text });

/**
 * Streams a turn and aborts it once the visible text contains `stopAt`, the way a host's
 * Stop button does.
 *
 * @returns The text the user saw before the abort.
 */
export async function interruptAfter(
  cursor: ReturnType<typeof emulatorProvider>,
  messages: ModelMessage[],
  sessionId: string,
  stopAt: string,
): Promise<string> {
  const controller = new AbortController();
  const result = streamText({
    model: cursor("gpt-5"),
    messages,
    abortSignal: controller.signal,
    ...session(sessionId),
    ...quiet,
    onError: () => {},
  });
  let seen = "";
  try {
    for await (const text of result.textStream) {
      seen += text;
      if (seen.includes(stopAt)) controller.abort();
    }
  } catch {
    // the abort ends the stream
  }
  return seen;
}

/** A host shell tool the test runs itself (no `execute`: the step ends at the call). */
export const declaredBash: Tool<{ command: string }, string> = tool({
  description: "Run a shell command",
  inputSchema: jsonSchema<{ command: string }>({
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
  }),
  outputSchema: jsonSchema<string>({ type: "string" }),
});

/** Streams a turn to its end and returns the visible text. */
export async function complete(
  cursor: ReturnType<typeof emulatorProvider>,
  messages: ModelMessage[],
  sessionId: string,
  tools?: ToolSet,
): Promise<string> {
  const result = streamText({
    model: cursor("gpt-5"),
    messages,
    ...(tools === undefined ? {} : { tools }),
    ...session(sessionId),
    ...quiet,
  });
  let text = "";
  for await (const delta of result.textStream) text += delta;
  return text;
}

/** What the model saw on the last model call of the emulator's latest Run. */
export function lastModelContext(emulator: CursorEmulator): string {
  const runs = emulator.runs();
  const calls = runs[runs.length - 1]?.modelCalls ?? [];
  return (calls[calls.length - 1]?.context ?? []).join("\n");
}

/** What one streamed turn showed, and how it failed (if it did). */
export interface TurnOutcome {
  readonly text: string;
  readonly error: unknown;
}

/**
 * Streams one user turn of a session through `ai` (no SDK retries) and keeps its error.
 *
 * @returns The visible text and the error, if any.
 */
export async function streamTurn(
  cursor: ReturnType<typeof emulatorProvider>,
  prompt: string,
  sessionId: string,
): Promise<TurnOutcome> {
  let error: unknown;
  const result = streamText({
    model: cursor("gpt-5"),
    messages: [user(prompt)],
    ...session(sessionId),
    ...quiet,
    onError: ({ error: e }) => {
      error = e;
    },
  });
  let text = "";
  try {
    for await (const delta of result.textStream) text += delta;
  } catch (e) {
    error = e;
  }
  return { text, error };
}

/** What a multi-step turn with host tools showed. */
export interface ToolTurnOutcome extends TurnOutcome {
  /** The response messages of every step (for the next turn's history). */
  readonly messages: ModelMessage[];
}

/**
 * Streams one user turn whose host tools really run (in `cwd`), up to four steps, and
 * keeps its error.
 *
 * @returns The visible text of every step, the error, and the steps' messages.
 */
export async function streamToolTurn(
  cursor: ReturnType<typeof emulatorProvider>,
  messages: ModelMessage[],
  sessionId: string,
  tools: ToolSet,
): Promise<ToolTurnOutcome> {
  let error: unknown;
  const result = streamText({
    model: cursor("gpt-5"),
    messages,
    tools,
    stopWhen: stepCountIs(4),
    ...session(sessionId),
    ...quiet,
    onError: ({ error: e }) => {
      error = e;
    },
  });
  let text = "";
  try {
    for await (const delta of result.textStream) text += delta;
  } catch (e) {
    error = e;
  }
  const response = error === undefined ? (await result.response).messages : [];
  return { text, error, messages: response };
}

/**
 * Runs the first step (the shell call) and returns the next prompt with its result.
 *
 * @param cursor The provider.
 * @param prompt The user's message.
 * @param sessionId The host session.
 * @param output What the shell printed.
 * @returns The prompt of the next step.
 */
export async function firstStep(
  cursor: ReturnType<typeof emulatorProvider>,
  prompt: string,
  sessionId: string,
  output = "marker-31 printed",
): Promise<ModelMessage[]> {
  const step = streamText({
    model: cursor("gpt-5"),
    messages: [user(prompt)],
    tools: { bash: declaredBash },
    ...session(sessionId),
    ...quiet,
  });
  await step.consumeStream();
  assert.equal(await step.finishReason, "tool-calls");
  const call = (await step.toolCalls)[0];
  assert.ok(call !== undefined, "Cursor asked for the shell");
  return [
    user(prompt),
    ...(await step.response).messages,
    {
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "text", value: output },
      }],
    },
  ];
}
