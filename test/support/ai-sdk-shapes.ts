/**
 * The AI SDK shapes the feature-table test reads with the TypeScript checker: the call
 * options and the part kinds of both specification versions.
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
} from "@ai-sdk/provider-v4";

type PartsOf<P extends readonly { content: unknown }[]> = Exclude<
  P[number]["content"],
  string
> extends readonly (infer Part)[] ? Part : never;

export type V3CallOptions = Required<LanguageModelV3CallOptions>;
export type V4CallOptions = Required<LanguageModelV4CallOptions>;
export type V3StreamKind = LanguageModelV3StreamPart["type"];
export type V4StreamKind = LanguageModelV4StreamPart["type"];
export type V3PromptKind = PartsOf<LanguageModelV3Prompt> extends { type: infer T } ? T : never;
export type V4PromptKind = PartsOf<LanguageModelV4Prompt> extends { type: infer T } ? T : never;
