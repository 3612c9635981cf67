/**
 * Whether a conversation seeded from host history fits the model's context window, checked
 * before any Run opens: a rebuild after an interrupted Run and every reseed (compaction,
 * edited or foreign history, an unusable checkpoint) send the whole history at once, and
 * an upload Cursor would refuse as too long costs the user the upload and the wait. The
 * window is the one Cursor reported in the conversation's latest checkpoint.
 *
 * @module
 */
import { fromBinary } from "@bufbuild/protobuf";
import { CursorError } from "../../../core/cursor-error.ts";
import { ConversationTokenDetailsSchema } from "../../../gen/agent/v1/conversation_state_pb.ts";
import { rawFieldBytes } from "../../../protocol/raw-field.ts";

/** Bytes per token of the size estimate (English text and JSON average about four). */
const BYTES_PER_TOKEN = 4;

/** `token_details` of a checkpoint (`ConversationStateStructure`). */
const TOKEN_DETAILS_FIELD = 5;

/** What the seed starts: wording of the overflow error. */
const SEED_WORDING = {
  rebuild: "rebuild after the interruption",
  reseed: "start over from its history",
  first: "start a Cursor conversation from its history",
} as const;

/**
 * The context overflow of a seeded conversation: the seed text and the system prompt are
 * estimated at four bytes a token against the model's window. The error is a
 * `context_overflow`, shown to the host with status 413 so it compacts the conversation
 * (ADR 066), exactly as when Cursor refuses a conversation as too long.
 *
 * @param seed The seed: its text, the system prompt sent with it, and what it starts.
 * @param windowTokens The model's context window, when known.
 * @returns The error, or `undefined` when the seed fits (or the window is unknown).
 *
 * @example
 * ```ts
 * import { seedOverflow } from "./seed-fit.ts";
 *
 * const seed = { text: "x".repeat(400), systemPrompt: "", kind: "reseed" as const };
 * console.assert(seedOverflow(seed, 50)?.code === "context_overflow");
 * console.assert(seedOverflow(seed, 10_000) === undefined);
 * console.assert(seedOverflow(seed, undefined) === undefined);
 * ```
 */
export function seedOverflow(
  seed: {
    readonly text: string;
    readonly systemPrompt: string;
    readonly kind: keyof typeof SEED_WORDING;
  },
  windowTokens: number | undefined,
): CursorError | undefined {
  if (windowTokens === undefined || windowTokens <= 0) return undefined;
  const bytes = new TextEncoder().encode(seed.systemPrompt + seed.text).length;
  const tokens = Math.ceil(bytes / BYTES_PER_TOKEN);
  if (tokens <= windowTokens) return undefined;
  return new CursorError(
    "context_overflow",
    `The conversation is too long to ${
      SEED_WORDING[seed.kind]
    }: about ${tokens} tokens for a context of ${windowTokens}; compact it and go on`,
    { retryable: false },
  );
}

/**
 * The context window Cursor reported in a checkpoint (`token_details.max_tokens`).
 *
 * @param checkpoint The checkpoint bytes, exactly as received.
 * @returns The window, or `undefined` when the checkpoint has none or cannot be read.
 *
 * @example
 * ```ts
 * import { BinaryWriter } from "@bufbuild/protobuf/wire";
 * import { checkpointWindow } from "./seed-fit.ts";
 *
 * const details = new BinaryWriter().tag(1, 0).uint32(900).tag(2, 0).uint32(200_000).finish();
 * const checkpoint = new BinaryWriter().tag(5, 2).bytes(details).finish();
 * console.assert(checkpointWindow(checkpoint) === 200_000);
 * console.assert(checkpointWindow(new Uint8Array(0)) === undefined);
 * ```
 */
export function checkpointWindow(checkpoint: Uint8Array | undefined): number | undefined {
  if (checkpoint === undefined || checkpoint.length === 0) return undefined;
  const details = rawFieldBytes(checkpoint, TOKEN_DETAILS_FIELD);
  if (details === undefined) return undefined;
  try {
    const maxTokens = fromBinary(ConversationTokenDetailsSchema, details).maxTokens;
    return maxTokens > 0 ? maxTokens : undefined;
  } catch {
    return undefined;
  }
}
