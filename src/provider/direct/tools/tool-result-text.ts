/**
 * The text of a host tool result, whatever form it came in, and whether it is an error.
 *
 * @module
 */
import type { LanguageModelV3ToolResultOutput } from "@ai-sdk/provider";

/** A host tool result reduced to text. */
export interface ToolResultText {
  readonly text: string;
  readonly isError: boolean;
  /** The host refused to run the tool (permission denied by the user or a rule). */
  readonly denied: boolean;
}

/**
 * Reduces a tool result output to text.
 *
 * @param output The AI SDK tool result output.
 * @returns Its text and error flags.
 *
 * @example
 * ```ts
 * import { toolResultText } from "./tool-result-text.ts";
 *
 * console.assert(toolResultText({ type: "error-text", value: "boom" }).isError);
 * ```
 */
export function toolResultText(output: LanguageModelV3ToolResultOutput): ToolResultText {
  switch (output.type) {
    case "text":
      return { text: output.value, isError: false, denied: false };
    case "error-text":
      return { text: output.value, isError: true, denied: false };
    case "json":
      return {
        text: typeof output.value === "string" ? output.value : JSON.stringify(output.value),
        isError: false,
        denied: false,
      };
    case "error-json":
      return { text: JSON.stringify(output.value), isError: true, denied: false };
    case "execution-denied":
      return {
        text: output.reason ?? "The user denied this tool call",
        isError: true,
        denied: true,
      };
    case "content":
      return {
        // Images travel as images (tools/tool-images.ts), not as a placeholder in the text.
        text: output.value.flatMap((part) =>
          part.type === "text" ? [part.text] : isImagePart(part) ? [] : [`[${part.type}]`]
        ).join("\n"),
        isError: false,
        denied: false,
      };
    default:
      return { text: JSON.stringify(output), isError: false, denied: false };
  }
}

type ContentPart = Extract<LanguageModelV3ToolResultOutput, { type: "content" }>["value"][number];

function isImagePart(part: ContentPart): boolean {
  return part.type === "image-data" ||
    (part.type === "file-data" && part.mediaType.startsWith("image/"));
}
