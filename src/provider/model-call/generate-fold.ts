/**
 * `doGenerate` as a fold of `doStream`, for both backends, so the two can never
 * disagree: text and reasoning deltas are joined per part (with their provider
 * metadata), tool calls, results of provider-executed tools, approval requests,
 * sources and files are kept in stream order, response metadata, warnings, usage,
 * finish reason and provider metadata are carried over, and an `error` part is thrown.
 *
 * @module
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3ResponseMetadata,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";

type TextContent = Extract<LanguageModelV3Content, { type: "text" | "reasoning" }>;

/** What the fold has collected so far. */
interface FoldState {
  readonly content: LanguageModelV3Content[];
  readonly open: Map<string, TextContent>;
  warnings: SharedV3Warning[];
  response: LanguageModelV3ResponseMetadata;
  finish:
    | {
      readonly usage: LanguageModelV3Usage;
      readonly finishReason: LanguageModelV3FinishReason;
      readonly providerMetadata: SharedV3ProviderMetadata | undefined;
    }
    | undefined;
}

/**
 * Reads a stream to its end and returns the equivalent generate result.
 *
 * @param result What `doStream` returned.
 * @returns The folded result.
 * @throws The error carried by an `error` part, the stream's own error, or a
 *   {@link CursorError} `interrupted` when the stream ended without a `finish`.
 *
 * @example
 * ```ts
 * import { foldStreamResult } from "./generate-fold.ts";
 *
 * const parts = [
 *   { type: "stream-start", warnings: [] },
 *   { type: "response-metadata", id: "r1", modelId: "m", timestamp: new Date(0) },
 *   { type: "text-start", id: "t" },
 *   { type: "text-delta", id: "t", delta: "Hi" },
 *   { type: "text-end", id: "t" },
 *   { type: "tool-call", toolCallId: "c1", toolName: "bash", input: "{}" },
 *   {
 *     type: "finish",
 *     finishReason: { unified: "tool-calls", raw: undefined },
 *     usage: {
 *       inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
 *       outputTokens: { total: 1, text: 1, reasoning: 0 },
 *     },
 *   },
 * ] as const;
 * const stream = new ReadableStream({ start(c) { for (const p of parts) c.enqueue(p); c.close(); } });
 * const result = await foldStreamResult({ stream });
 * console.assert(result.content.map((c) => c.type).join() === "text,tool-call");
 * console.assert(result.response?.id === "r1" && result.finishReason.unified === "tool-calls");
 * ```
 */
export async function foldStreamResult(
  result: LanguageModelV3StreamResult,
): Promise<LanguageModelV3GenerateResult> {
  const state: FoldState = {
    content: [],
    open: new Map(),
    warnings: [],
    response: {},
    finish: undefined,
  };
  const reader = result.stream.getReader();
  for (;;) {
    const { value: part, done } = await reader.read();
    if (done) break;
    if (part.type === "error") {
      await reader.cancel().catch(() => {});
      throw part.error;
    }
    foldPart(state, part);
  }
  const finish = state.finish;
  if (finish === undefined) {
    throw new CursorError("interrupted", "The stream ended without a finish");
  }
  return {
    content: state.content,
    finishReason: finish.finishReason,
    usage: finish.usage,
    warnings: state.warnings,
    ...(result.request === undefined ? {} : { request: result.request }),
    response: { ...state.response, ...result.response },
    ...(finish.providerMetadata === undefined ? {} : { providerMetadata: finish.providerMetadata }),
  };
}

function foldPart(state: FoldState, part: LanguageModelV3StreamPart): void {
  switch (part.type) {
    case "stream-start":
      state.warnings = [...part.warnings];
      return;
    case "response-metadata":
      state.response = {
        ...state.response,
        ...(part.id === undefined ? {} : { id: part.id }),
        ...(part.modelId === undefined ? {} : { modelId: part.modelId }),
        ...(part.timestamp === undefined ? {} : { timestamp: part.timestamp }),
      };
      return;
    case "finish":
      state.finish = {
        usage: part.usage,
        finishReason: part.finishReason,
        providerMetadata: part.providerMetadata,
      };
      return;
    case "text-start":
    case "reasoning-start": {
      const item: TextContent = {
        type: part.type === "text-start" ? "text" : "reasoning",
        text: "",
        ...(part.providerMetadata === undefined ? {} : { providerMetadata: part.providerMetadata }),
      };
      state.open.set(part.id, item);
      state.content.push(item);
      return;
    }
    case "text-delta":
    case "reasoning-delta": {
      const item = state.open.get(part.id);
      if (item) item.text += part.delta;
      return;
    }
    case "text-end":
    case "reasoning-end": {
      const item = state.open.get(part.id);
      state.open.delete(part.id);
      if (item && part.providerMetadata !== undefined) {
        item.providerMetadata = { ...item.providerMetadata, ...part.providerMetadata };
      }
      return;
    }
    case "tool-call":
    case "tool-result":
    case "tool-approval-request":
    case "source":
    case "file":
      state.content.push(part);
      return;
    default:
      // Tool input deltas are repeated whole by their `tool-call`; raw chunks are stream-only.
      return;
  }
}
