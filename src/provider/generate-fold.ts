/**
 * Folds a `doStream` result into a `doGenerate` result, so the two can never
 * disagree: text and reasoning deltas are joined per part, tool calls and results
 * are kept in order, and an `error` part is thrown.
 *
 * @module
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3GenerateResult,
  LanguageModelV3StreamPart,
  LanguageModelV3StreamResult,
  LanguageModelV3Usage,
  SharedV3ProviderMetadata,
  SharedV3Warning,
} from "@ai-sdk/provider";

type TextContent = Extract<LanguageModelV3Content, { type: "text" | "reasoning" }>;

/**
 * Reads a stream to its end and returns the equivalent generate result.
 *
 * @param result What `doStream` returned.
 * @returns The folded result.
 * @throws The error carried by an `error` part, or the stream's own error.
 */
export async function foldStreamResult(
  result: LanguageModelV3StreamResult,
): Promise<LanguageModelV3GenerateResult> {
  const content: LanguageModelV3Content[] = [];
  const open = new Map<string, TextContent>();
  let warnings: SharedV3Warning[] = [];
  let usage: LanguageModelV3Usage | undefined;
  let finishReason: LanguageModelV3FinishReason = { unified: "other", raw: undefined };
  let providerMetadata: SharedV3ProviderMetadata | undefined;
  let response: { id?: string; modelId?: string } = {};

  const reader = result.stream.getReader();
  for (;;) {
    const { value: part, done } = await reader.read();
    if (done) break;
    if (part.type === "error") {
      await reader.cancel().catch(() => {});
      throw part.error;
    }
    if (part.type === "stream-start") warnings = part.warnings;
    else if (part.type === "finish") {
      usage = part.usage;
      finishReason = part.finishReason;
      providerMetadata = part.providerMetadata;
    } else if (part.type === "response-metadata") {
      response = {
        ...(part.id === undefined ? {} : { id: part.id }),
        ...(part.modelId === undefined ? {} : { modelId: part.modelId }),
      };
    } else foldContent(part, content, open);
  }
  return {
    content,
    finishReason,
    usage: usage ?? emptyUsage(),
    warnings,
    ...(result.request === undefined ? {} : { request: result.request }),
    response,
    ...(providerMetadata === undefined ? {} : { providerMetadata }),
  };
}

function foldContent(
  part: LanguageModelV3StreamPart,
  content: LanguageModelV3Content[],
  open: Map<string, TextContent>,
): void {
  switch (part.type) {
    case "text-start":
    case "reasoning-start": {
      const item: TextContent = {
        type: part.type === "text-start" ? "text" : "reasoning",
        text: "",
      };
      open.set(part.id, item);
      content.push(item);
      break;
    }
    case "text-delta":
    case "reasoning-delta": {
      const item = open.get(part.id);
      if (item) item.text += part.delta;
      break;
    }
    case "tool-call":
    case "tool-result":
      content.push(part);
      break;
    default:
      break;
  }
}

function emptyUsage(): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: undefined,
      noCache: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: undefined, text: undefined, reasoning: undefined },
  };
}
