/**
 * The call options the CLI cannot honour, turned into AI SDK warnings for the
 * `stream-start` part (the call still runs).
 *
 * @module
 */
import type { LanguageModelV3CallOptions, SharedV3Warning } from "@ai-sdk/provider";

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
 * Lists warnings for options `cursor-agent` has no flag for.
 *
 * @param options The call options.
 * @returns One warning per unsupported option that was set.
 *
 * @example
 * ```ts
 * import { callWarnings } from "./call-warnings.ts";
 *
 * const warnings = callWarnings({ prompt: [], temperature: 0.2 });
 * console.assert(warnings[0]?.type === "unsupported" && warnings[0].feature === "temperature");
 * ```
 */
export function callWarnings(options: LanguageModelV3CallOptions): SharedV3Warning[] {
  const warnings: SharedV3Warning[] = [];
  for (const name of SAMPLING_OPTIONS) {
    if (options[name] !== undefined) {
      warnings.push({
        type: "unsupported",
        feature: name,
        details: "cursor-agent has no setting for it",
      });
    }
  }
  if (options.responseFormat?.type === "json") {
    warnings.push({
      type: "unsupported",
      feature: "responseFormat",
      details: "cursor-agent cannot enforce JSON output; ask for JSON in the prompt",
    });
  }
  const choice = options.toolChoice?.type;
  if (choice === "required" || choice === "tool") {
    warnings.push({
      type: "unsupported",
      feature: "toolChoice",
      details: `toolChoice "${choice}" is not enforced; Cursor's agent decides when to use tools`,
    });
  }
  for (const tool of options.tools ?? []) {
    if (tool.type === "provider") {
      warnings.push({
        type: "unsupported",
        feature: `provider tool ${tool.id}`,
        details: "ignored by cursor-agent",
      });
    }
  }
  if (promptHasFiles(options)) {
    warnings.push({
      type: "unsupported",
      feature: "file parts",
      details:
        "cursor-agent's print mode takes no attachments; files are replaced by a placeholder",
    });
  }
  return warnings;
}

function promptHasFiles(options: LanguageModelV3CallOptions): boolean {
  return options.prompt.some((message) =>
    message.role === "user" && message.content.some((part) => part.type === "file")
  );
}
