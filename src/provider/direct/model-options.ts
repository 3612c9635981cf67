/**
 * Per-call Cursor options (`providerOptions.cursor`) and the model selection they give.
 *
 * @module
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import { parseSessionRules, type SessionRules } from "./interactions/session-rules.ts";

/** A Cursor model parameter (`effort=high`, `thinking=true`, `context=1m`, …). */
export interface CursorParameter {
  readonly id: string;
  readonly value: string;
}

/** What `providerOptions.cursor` may carry. */
export interface CursorCallOptions {
  /** The Cursor model id when it differs from the host's model id (e.g. `-1m` entries). */
  readonly cursorModelId?: string;
  /** The exact variant parameter tuple. */
  readonly cursorVariantParameters?: readonly CursorParameter[];
  /** Ask for Max Mode. Implied by a `context=1m` parameter. */
  readonly cursorMaxMode?: boolean;
  /** Key of the host conversation, for apps that send no session header. */
  readonly sessionId?: string;
  /** The usage shape of this call's finishes (default: the provider's `usage` setting). */
  readonly usage?: "occupancy" | "request";
  /** The host session's permission rules (the classic OpenCode plugin reads them). */
  readonly sessionRules?: SessionRules;
}

/** The model selection as it goes on the wire. */
export interface ModelSelection {
  readonly modelId: string;
  readonly parameters: readonly CursorParameter[];
  readonly maxMode: boolean;
}

/**
 * Reads `providerOptions.cursor` strictly: a malformed value is an error, never ignored.
 *
 * @param providerOptions The call's provider options.
 * @param providerName The provider's name (`cursor`, or what the host registered).
 * @returns The parsed options.
 * @throws {CursorError} `invalid_argument` for a malformed value.
 */
export function readCursorOptions(
  providerOptions: LanguageModelV3CallOptions["providerOptions"],
  providerName: string,
): CursorCallOptions {
  const raw = providerOptions?.[providerName] ?? providerOptions?.cursor;
  if (raw === undefined) return {};
  const out: { -readonly [K in keyof CursorCallOptions]: CursorCallOptions[K] } = {};
  if (raw.cursorModelId !== undefined) {
    if (typeof raw.cursorModelId !== "string" || raw.cursorModelId === "") {
      throw invalid("cursorModelId must be a non-empty string");
    }
    out.cursorModelId = raw.cursorModelId;
  }
  if (raw.cursorVariantParameters !== undefined) {
    const list = raw.cursorVariantParameters;
    if (!Array.isArray(list)) {
      throw invalid("cursorVariantParameters must be an array of {id, value}");
    }
    out.cursorVariantParameters = list.map((item, index) => {
      if (typeof item !== "object" || item === null || Array.isArray(item)) {
        throw invalid(`cursorVariantParameters[${index}] is not an object`);
      }
      const { id, value } = item as Record<string, unknown>;
      if (typeof id !== "string" || id === "" || typeof value !== "string") {
        throw invalid(`cursorVariantParameters[${index}] must be {id: string, value: string}`);
      }
      return { id, value };
    });
  }
  if (raw.cursorMaxMode !== undefined) {
    if (typeof raw.cursorMaxMode !== "boolean") throw invalid("cursorMaxMode must be a boolean");
    out.cursorMaxMode = raw.cursorMaxMode;
  }
  if (raw.sessionId !== undefined) {
    if (typeof raw.sessionId !== "string") throw invalid("sessionId must be a string");
    out.sessionId = raw.sessionId;
  }
  if (raw.usage !== undefined) {
    if (raw.usage !== "occupancy" && raw.usage !== "request") {
      throw invalid(`usage must be "occupancy" or "request", got ${JSON.stringify(raw.usage)}`);
    }
    out.usage = raw.usage;
  }
  if (raw.sessionRules !== undefined) out.sessionRules = parseSessionRules(raw.sessionRules);
  return out;
}

/**
 * The wire model selection for a call.
 *
 * @param modelId The host's model id.
 * @param options The call's Cursor options.
 * @returns Model id, parameters and Max Mode.
 *
 * @example
 * ```ts
 * import { selectModel } from "./model-options.ts";
 *
 * const selection = selectModel("gpt-x-1m", { cursorModelId: "gpt-x", cursorVariantParameters: [{ id: "context", value: "1m" }] });
 * console.assert(selection.modelId === "gpt-x" && selection.maxMode);
 * ```
 */
export function selectModel(modelId: string, options: CursorCallOptions): ModelSelection {
  const parameters = options.cursorVariantParameters ?? [];
  const longContext = parameters.some((p) => p.id === "context" && p.value.toLowerCase() === "1m");
  return {
    modelId: options.cursorModelId ?? modelId,
    parameters,
    maxMode: options.cursorMaxMode ?? longContext,
  };
}

function invalid(message: string): CursorError {
  return new CursorError("invalid_argument", `Invalid providerOptions.cursor: ${message}`);
}
