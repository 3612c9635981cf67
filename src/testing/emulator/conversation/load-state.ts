/**
 * Where a Run's conversation comes from: a fresh transcript for a new conversation, or
 * one REBUILT from the client's blob store — every root, turn, user message and step the
 * supplied checkpoint references is fetched with `get_blob`, so state genuinely lives
 * with the client.
 *
 * @module
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type ConversationStateStructure,
  ConversationStateStructureSchema,
  ConversationStepSchema,
  ConversationTurnStructureSchema,
} from "../../../gen/agent/v1/conversation_state_pb.ts";
import { UserMessageSchema } from "../../../gen/agent/v1/user_message_pb.ts";
import {
  type RequestContext,
  RequestContextSchema,
} from "../../../gen/agent/v1/request_context_pb.ts";
import type { ConversationHistory } from "../../../gen/agent/v1/conversation_action_pb.ts";
import { RunFailure } from "../wire/connect-http.ts";
import { bytesToHex } from "../../../core/bytes.ts";
import type { BlobChannel } from "../io/blob-channel.ts";
import type { ConversationBlobs } from "./blob-cache.ts";
import type { RunIo } from "../io/run-io.ts";
import {
  parseRoot,
  rootBytes,
  type RootJson,
  type RootMessage,
  type Transcript,
  type TurnEntry,
} from "./transcript.ts";

/** The system prompt of the emulated model. */
export const SYSTEM_PROMPT =
  "You are the Cursor emulator's deterministic model. Follow `::` directives in the " +
  "user's message; otherwise reply with a short echo. Never invent tool results.";

/** Decodes a checkpoint, failing the Run with `invalid_argument` when it is not protobuf. */
export function decodeState(bytes: Uint8Array): ConversationStateStructure {
  try {
    return fromBinary(ConversationStateStructureSchema, bytes);
  } catch (cause) {
    throw new RunFailure({
      code: "invalid_argument",
      message: `Conversation state does not decode: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
    });
  }
}

/**
 * Rebuilds the transcript a checkpoint references by fetching every blob.
 *
 * @param io The Run.
 * @param blobs The KV channel.
 * @param state The decoded checkpoint.
 * @returns The transcript.
 * @throws {RunFailure} `internal` "Blob not found" when the client cannot serve a blob.
 */
export async function rebuildTranscript(
  io: RunIo,
  blobs: BlobChannel<ConversationBlobs>,
  state: ConversationStateStructure,
): Promise<Transcript> {
  const entries = state.rootPromptMessagesJson;
  const ids = entries.filter((entry) => entry.length === 32);
  const inline = entries.length - ids.length;
  if (entries.length > 0) {
    io.variant("rootEntries", inline === 0 ? "blob-ids" : ids.length === 0 ? "inline" : "mixed");
  }
  const fetched = await blobs.get(ids);
  const decoded = blobs.server?.decoded;
  let next = 0;
  const roots: RootMessage[] = entries.map((entry) => {
    if (entry.length !== 32) return { id: entry, bytes: entry, json: parseRoot(entry) };
    const bytes = fetched[next++] ?? new Uint8Array(0);
    return { id: entry, bytes, json: remember(decoded?.roots, entry, () => parseRoot(bytes)) };
  });
  const turnBlobs = await blobs.get(state.turns);
  const turns = await Promise.all(
    turnBlobs.map((bytes, index) => rebuildTurn(blobs, bytes, state.turns[index])),
  );
  return { roots, turns };
}

async function rebuildTurn(
  blobs: BlobChannel<ConversationBlobs>,
  bytes: Uint8Array,
  blobId: Uint8Array | undefined,
): Promise<TurnEntry> {
  const decoded = blobs.server?.decoded;
  const turn = remember(
    decoded?.turns,
    blobId,
    () => decodeOrFail(() => fromBinary(ConversationTurnStructureSchema, bytes), "turn"),
  );
  if (turn.turn.case !== "agentConversationTurn") {
    throw new RunFailure({
      code: "unimplemented",
      message: `Turn kind ${turn.turn.case ?? "unset"} is not emulated`,
    });
  }
  const agentTurn = turn.turn.value;
  const [userBytes = new Uint8Array(0), ...stepBytes] = await blobs.get([
    agentTurn.userMessage,
    ...agentTurn.steps,
  ]);
  const userMessage = remember(
    decoded?.userMessages,
    agentTurn.userMessage,
    () => decodeOrFail(() => fromBinary(UserMessageSchema, userBytes), "user message"),
  );
  const steps = stepBytes.map((data, index) => {
    const id = agentTurn.steps[index] ?? new Uint8Array(0);
    const step = remember(
      decoded?.steps,
      id,
      () => decodeOrFail(() => fromBinary(ConversationStepSchema, data), "step"),
    );
    return { id, step };
  });
  return {
    userMessageId: agentTurn.userMessage,
    userMessage,
    steps,
    requestId: agentTurn.requestId ?? "",
    blobId,
  };
}

/** A blob's decoded form from the server's memo (by id), decoding and keeping it on a miss. */
function remember<T>(
  memo: Map<string, T> | undefined,
  id: Uint8Array | undefined,
  decode: () => T,
): T {
  if (memo === undefined || id === undefined || id.length !== 32) return decode();
  const hex = bytesToHex(id);
  const known = memo.get(hex);
  if (known !== undefined) return known;
  const value = decode();
  memo.set(hex, value);
  return value;
}

function decodeOrFail<T>(decode: () => T, what: string): T {
  try {
    return decode();
  } catch {
    throw new RunFailure({ code: "internal", message: `Stored ${what} blob does not decode` });
  }
}

/** The injected-context root: what the model is told about the client's machine. */
function injectedContext(context: RequestContext | undefined): RootJson {
  const env = context?.env;
  const lines = [
    `OS: ${env?.osVersion ?? "unknown"}`,
    `Workspace: ${env?.workspacePaths.join(", ") ?? ""}`,
    `Shell: ${env?.shell ?? ""}`,
    `Time zone: ${env?.timeZone ?? ""}`,
  ];
  return {
    role: "user",
    content: `<user_info>\n${lines.join("\n")}\n</user_info>`,
    providerOptions: { emulator: { injected: true } },
  };
}

/**
 * Seeds a new conversation's transcript: the system prompt and the injected context
 * (blobs queued for SET), plus an inline `conversation_history` if the client sent one.
 */
export async function seedTranscript(
  blobs: BlobChannel<ConversationBlobs>,
  context: RequestContext | undefined,
  history: ConversationHistory | undefined,
): Promise<Transcript> {
  const transcript: Transcript = { roots: [], turns: [] };
  const jsons: RootJson[] = [{ role: "system", content: SYSTEM_PROMPT }, injectedContext(context)];
  for (const message of history?.messages ?? []) jsons.push(historyRoot(message.message));
  for (const json of jsons) {
    const bytes = rootBytes(json);
    transcript.roots.push({ id: await blobs.put(bytes), bytes, json });
  }
  return transcript;
}

function historyRoot(message: ConversationHistory["messages"][number]["message"]): RootJson {
  switch (message.case) {
    case "user":
      return {
        role: "user",
        content: message.value.content.map((part) =>
          part.content.case === "text"
            ? { type: "text", text: part.content.value.text }
            : { type: "image" }
        ),
      };
    case "assistant":
      return {
        role: "assistant",
        content: message.value.content.map((part) =>
          part.content.case === "text"
            ? { type: "text", text: part.content.value.text }
            : { type: part.content.case ?? "unknown" }
        ),
      };
    case "tool":
      return {
        role: "tool",
        id: message.value.toolCallId,
        content: [{ type: "tool-result", toolCallId: message.value.toolCallId, result: "" }],
      };
    default:
      return { role: "user", content: "" };
  }
}

/** Whether two request contexts encode to the same bytes. */
export function sameContext(a: RequestContext | undefined, b: Uint8Array): boolean {
  if (a === undefined) return false;
  const encoded = toBinary(RequestContextSchema, a);
  return encoded.length === b.length && encoded.every((byte, index) => byte === b[index]);
}
