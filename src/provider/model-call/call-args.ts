/**
 * From the AI SDK's call options to what a backend works with, in one place for both
 * backends: the tools a backend may use (none when the caller chose `toolChoice:
 * "none"`) and one warning for every option Cursor cannot honour. Backends add only
 * warnings that depend on what they find while preparing the turn.
 *
 * @module
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3ProviderTool,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { type CursorCallOptions, parseCursorOptions } from "../settings/cursor-options.ts";

/** What a backend can take from a call, for the warnings of what it cannot. */
export interface BackendCapabilities {
  /** How warnings name the backend, e.g. `Cursor's agent` or `cursor-agent`. */
  readonly label: string;
  /**
   * Which prompt files reach the model: `images` (others are dropped by the prompt
   * conversion, which warns itself) or `none` (every file is replaced by a placeholder).
   */
  readonly files: "images" | "none";
  /** The `providerOptions` key this provider reads besides `cursor` (its registered name). */
  readonly optionsKey?: string;
  /** The backend maps the `reasoning` option to a model variant (else it is a warning). */
  readonly reasoningVariants?: boolean;
  /** The backend emits `raw` parts for `includeRawChunks` (else it is a warning). */
  readonly rawChunks?: boolean;
}

/**
 * How much the model should reason: the values of the AI SDK 7 `reasoning` call option,
 * written out so the AI SDK 6 entries need not export AI SDK 7 types
 * (test/provider/public-types.test.ts checks they are the same).
 */
export type ReasoningLevel =
  | "provider-default"
  | "none"
  | "minimal"
  | "low"
  | "medium"
  | "high"
  | "xhigh"
  | "max";

/**
 * One call as the provider takes it: the AI SDK 6 call options, plus the AI SDK 7
 * `reasoning` option (the AI SDK 7 model converts its options to this).
 */
export type CursorCallInput = LanguageModelV3CallOptions & {
  readonly reasoning?: ReasoningLevel | undefined;
};

/** One call, as every backend receives it. */
export interface CallArgs {
  /** The host-facing model id. */
  readonly modelId: string;
  /** The AI SDK's call options, unchanged. */
  readonly options: LanguageModelV3CallOptions;
  /** The `reasoning` option (AI SDK 7), when one other than `provider-default` was given. */
  readonly reasoning: Exclude<ReasoningLevel, "provider-default"> | undefined;
  /** The host tools the backend may hand calls to (empty for `toolChoice: "none"`). */
  readonly tools: readonly (LanguageModelV3FunctionTool | LanguageModelV3ProviderTool)[];
  /** `providerOptions.cursor`, checked. */
  readonly cursorOptions: CursorCallOptions;
  /** Warnings for the options that cannot be honoured. */
  readonly warnings: readonly SharedV3Warning[];
}

const SAMPLING_OPTIONS = [
  "temperature",
  "topP",
  "topK",
  "presencePenalty",
  "frequencyPenalty",
  "seed",
  "maxOutputTokens",
  "stopSequences",
] as const;

/**
 * Resolves one call's options for a backend.
 *
 * @param modelId The host-facing model id.
 * @param options The AI SDK's call options.
 * @param capabilities What the backend can take.
 * @returns The call arguments with their warnings.
 * @throws {CursorError} `invalid_argument` for malformed `providerOptions.cursor`.
 *
 * @example
 * ```ts
 * import { buildCallArgs } from "./call-args.ts";
 *
 * const call = buildCallArgs("auto", { prompt: [], temperature: 0.2, toolChoice: { type: "none" } }, {
 *   label: "cursor-agent",
 *   files: "none",
 * });
 * console.assert(call.warnings[0]?.type === "unsupported" && call.tools.length === 0);
 * ```
 */
export function buildCallArgs(
  modelId: string,
  input: CursorCallInput,
  capabilities: BackendCapabilities,
): CallArgs {
  const { reasoning: level, ...options } = input;
  const parsed = parseCursorOptions(options.providerOptions, capabilities.optionsKey ?? "cursor");
  const reasoning = level === "provider-default" ? undefined : level;
  const reasoningWarnings: SharedV3Warning[] =
    reasoning === undefined || capabilities.reasoningVariants ? [] : [{
      type: "unsupported",
      feature: "reasoning",
      details: `${capabilities.label} has no reasoning setting; the model reasons as configured`,
    }];
  return {
    modelId,
    options,
    reasoning,
    tools: options.toolChoice?.type === "none" ? [] : options.tools ?? [],
    cursorOptions: parsed.options,
    warnings: [...callWarnings(options, capabilities), ...parsed.warnings, ...reasoningWarnings],
  };
}

function callWarnings(
  options: LanguageModelV3CallOptions,
  capabilities: BackendCapabilities,
): SharedV3Warning[] {
  const { label } = capabilities;
  const warnings: SharedV3Warning[] = [];
  for (const name of SAMPLING_OPTIONS) {
    if (options[name] !== undefined) {
      warnings.push({
        type: "unsupported",
        feature: name,
        details: `${label} has no setting for it`,
      });
    }
  }
  if (options.responseFormat?.type === "json") {
    warnings.push({
      type: "compatibility",
      feature: "responseFormat",
      details:
        `${label} cannot enforce JSON output: the schema goes to the model as an instruction and the answer is checked against it`,
    });
  }
  const choice = options.toolChoice?.type;
  if (choice === "required" || choice === "tool") {
    warnings.push({
      type: "unsupported",
      feature: "toolChoice",
      details: `toolChoice "${choice}" is not enforced; ${label} decides when to use tools`,
    });
  }
  for (const tool of options.tools ?? []) {
    if (tool.type === "provider") {
      warnings.push({
        type: "unsupported",
        feature: `provider tool ${tool.id}`,
        details: `ignored by ${label}`,
      });
    }
  }
  if (options.includeRawChunks === true && capabilities.rawChunks !== true) {
    warnings.push({
      type: "unsupported",
      feature: "includeRawChunks",
      details: `${label} streams protobuf frames; no raw chunks are emitted`,
    });
  }
  if (promptHasApprovalResponses(options)) {
    warnings.push({
      type: "unsupported",
      feature: "tool-approval-response parts",
      details: `ignored: ${label} never asks for tool approval`,
    });
  }
  if (capabilities.files === "none" && promptHasFiles(options)) {
    warnings.push({
      type: "unsupported",
      feature: "file parts",
      details: `${label} takes no attachments; files are replaced by a placeholder`,
    });
  }
  return warnings;
}

function promptHasApprovalResponses(options: LanguageModelV3CallOptions): boolean {
  return options.prompt.some((message) =>
    message.role === "tool" &&
    message.content.some((part) => part.type === "tool-approval-response")
  );
}

function promptHasFiles(options: LanguageModelV3CallOptions): boolean {
  return options.prompt.some((message) =>
    message.role === "user" && message.content.some((part) => part.type === "file")
  );
}
