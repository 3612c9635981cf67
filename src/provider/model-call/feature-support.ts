/**
 * What the provider does with every AI SDK call option and every part kind, in one
 * table per kind: `supported`, `emulated` (done another way than the option implies),
 * `ignored with a warning`, `rejected` (the call fails with a clear error), and for
 * output parts `not produced`. docs/ai-sdk.md shows the same table; a test keeps the
 * two equal, checks the rows against the AI SDK's own types (a new option without a row
 * fails it) and checks each row's status against what the code does.
 *
 * @module
 */

/** How the provider treats one option or part kind. */
export type SupportStatus =
  | "supported"
  | "emulated"
  | "ignored with a warning"
  | "rejected"
  | "not produced";

/** One row: the status and a few words on how. */
export interface SupportRow {
  readonly status: SupportStatus;
  readonly note: string;
}

/** Every call option of `LanguageModelV3CallOptions` and `LanguageModelV4CallOptions`. */
export const CALL_OPTION_SUPPORT: Readonly<Record<string, SupportRow>> = {
  prompt: { status: "supported", note: "system messages become rules; see the part table" },
  tools: {
    status: "supported",
    note: "Cursor's tool requests run as your matching tools; others are offered as MCP tools",
  },
  toolChoice: {
    status: "supported",
    note: "`auto` and `none`; `required` and `tool` are ignored with a warning (Cursor decides)",
  },
  responseFormat: {
    status: "emulated",
    note: "the JSON schema goes to the model as an instruction, the answer is checked against it",
  },
  reasoning: {
    status: "emulated",
    note: "AI SDK 7: the model's Cursor variant for the level; a warning when it has none",
  },
  providerOptions: { status: "supported", note: "`providerOptions.cursor`, checked strictly" },
  abortSignal: {
    status: "supported",
    note: "cancels the Run; the call rejects with an AbortError",
  },
  headers: {
    status: "supported",
    note: "OpenCode's session headers pick the conversation; not forwarded to Cursor",
  },
  includeRawChunks: {
    status: "supported",
    note: "CLI backend: each stream-json line; direct backend: ignored with a warning",
  },
  maxOutputTokens: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
  temperature: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
  topP: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
  topK: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
  presencePenalty: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
  frequencyPenalty: {
    status: "ignored with a warning",
    note: "Cursor's agent has no such setting",
  },
  seed: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
  stopSequences: { status: "ignored with a warning", note: "Cursor's agent has no such setting" },
};

/** Every prompt part kind (AI SDK 7 names; AI SDK 6 has a subset). */
export const PROMPT_PART_SUPPORT: Readonly<Record<string, SupportRow>> = {
  text: { status: "supported", note: "user and assistant text" },
  file: {
    status: "supported",
    note: "images to image-capable models (direct backend); other files ignored with a warning; " +
      "a file given only as a provider reference is rejected",
  },
  reasoning: { status: "supported", note: "kept in the host's history, not re-sent as text" },
  "tool-call": { status: "supported", note: "held Runs continue; rebuilt history shows the call" },
  "tool-result": { status: "supported", note: "goes back on the held Run" },
  "tool-approval-response": {
    status: "ignored with a warning",
    note: "the provider never asks for approval",
  },
  custom: { status: "ignored with a warning", note: "Cursor's history has no such part" },
  "reasoning-file": { status: "ignored with a warning", note: "Cursor's history has no such part" },
};

/** Every stream part kind (`LanguageModelV4StreamPart`, a superset of V3's). */
export const STREAM_PART_SUPPORT: Readonly<Record<string, SupportRow>> = {
  "stream-start": { status: "supported", note: "with the call's warnings" },
  "response-metadata": { status: "supported", note: "Cursor's request id, the model id" },
  "text-start": { status: "supported", note: "" },
  "text-delta": { status: "supported", note: "" },
  "text-end": { status: "supported", note: "" },
  "reasoning-start": { status: "supported", note: "Cursor's thinking" },
  "reasoning-delta": { status: "supported", note: "Cursor's thinking" },
  "reasoning-end": { status: "supported", note: "Cursor's thinking" },
  "tool-input-start": { status: "supported", note: "" },
  "tool-input-delta": { status: "supported", note: "" },
  "tool-input-end": { status: "supported", note: "" },
  "tool-call": { status: "supported", note: "a call of your tool" },
  "tool-result": { status: "supported", note: "CLI backend: tools Cursor ran itself" },
  finish: { status: "supported", note: "usage in the call's mode, `providerMetadata.cursor`" },
  error: { status: "supported", note: "an `APICallError` with the `CursorError` as cause" },
  raw: { status: "supported", note: "CLI backend with `includeRawChunks`" },
  "tool-approval-request": { status: "not produced", note: "" },
  source: { status: "not produced", note: "web searches run through your tool" },
  file: { status: "not produced", note: "generated images are saved by a tool" },
  "reasoning-file": { status: "not produced", note: "" },
  custom: { status: "not produced", note: "" },
  ping: { status: "not produced", note: "" },
};
