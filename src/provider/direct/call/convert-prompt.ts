/**
 * Turns an AI SDK prompt into what a Cursor Run carries: the system prompt (sent as a
 * rule in the request context), the latest user message (text and images), and, when
 * there is earlier history the Run cannot take from a checkpoint, a transcript of it.
 *
 * @module
 */
import type {
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultOutput,
  SharedV3Warning,
} from "@ai-sdk/provider";
import { CursorError } from "../../../core/cursor-error.ts";
import { projectShellOutput, unwrapCommand } from "../tools/shell/shell-wrapper.ts";
import { sniffImageType } from "../tools/media/tool-images.ts";

/** An image the user attached. */
export interface PromptImage {
  readonly data: Uint8Array;
  readonly mimeType: string;
}

/** What a Run needs from the prompt. */
export interface ConvertedPrompt {
  readonly systemPrompt: string;
  /** The text of the last user message. */
  readonly userText: string;
  readonly images: readonly PromptImage[];
  /** Earlier turns rendered as a transcript (empty when the prompt is one user message). */
  readonly history: string;
  readonly warnings: SharedV3Warning[];
}

/**
 * Converts the prompt.
 *
 * @param prompt The AI SDK prompt.
 * @param options Whether the model accepts images.
 * @returns The converted prompt.
 * @throws {CursorError} `invalid_argument` when there is no user message to answer, or for an
 *   image over 20 MiB.
 *
 * @example
 * ```ts
 * import { convertPrompt } from "./convert-prompt.ts";
 *
 * const converted = convertPrompt([
 *   { role: "system", content: "Be brief" },
 *   { role: "user", content: [{ type: "text", text: "Hi" }] },
 * ], { supportsImages: false });
 * console.assert(converted.systemPrompt === "Be brief" && converted.userText === "Hi");
 * ```
 */
export function convertPrompt(
  prompt: LanguageModelV3Prompt,
  options: { supportsImages: boolean },
): ConvertedPrompt {
  const warnings: SharedV3Warning[] = [];
  const system = prompt.filter((m) => m.role === "system").map((m) => m.content).join("\n\n");
  const lastUserIndex = prompt.findLastIndex((m) => m.role === "user");
  const lastUser = prompt[lastUserIndex];
  if (lastUser === undefined || lastUser.role !== "user") {
    throw new CursorError("invalid_argument", "The prompt has no user message to answer");
  }
  const images: PromptImage[] = [];
  const texts: string[] = [];
  for (const part of lastUser.content) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "file" && part.mediaType.startsWith("image/")) {
      const data = fileBytes(part.data);
      if (!options.supportsImages) {
        warnings.push({
          type: "other",
          message: "This model does not accept images; the image was left out",
        });
      } else if (data === undefined) {
        warnings.push({
          type: "other",
          message: "Image URLs are not supported; attach image bytes instead",
        });
      } else addUserImage(images, data, part.mediaType, warnings);
    } else {
      warnings.push({
        type: "other",
        message: `Unsupported user content part "${part.type}" was left out`,
      });
    }
  }
  const history = renderHistory(prompt.slice(0, lastUserIndex).filter((m) => m.role !== "system"));
  return { systemPrompt: system, userText: texts.join("\n"), images, history, warnings };
}

/** Largest image sent with a user message: 20 MiB (as tool-result images). */
const MAX_USER_IMAGE_BYTES = 20 * 1024 * 1024;

/**
 * Adds a user image: refused over 20 MiB, typed by its bytes when they show an image type
 * (else as the host said), and left out when the message already carries the same bytes.
 */
function addUserImage(
  images: PromptImage[],
  data: Uint8Array,
  mediaType: string,
  warnings: SharedV3Warning[],
): void {
  if (data.length > MAX_USER_IMAGE_BYTES) {
    throw new CursorError(
      "invalid_argument",
      `An image of ${data.length} bytes is over the 20 MiB limit; attach a smaller image`,
    );
  }
  if (images.some((image) => sameBytes(image.data, data))) {
    warnings.push({ type: "other", message: "The same image was attached twice; it is sent once" });
    return;
  }
  images.push({ data, mimeType: sniffImageType(data) ?? mediaType });
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, index) => byte === b[index]);
}

function fileBytes(data: Uint8Array | string | URL): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data;
  if (data instanceof URL) return undefined;
  try {
    const binary = atob(data);
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}

/**
 * Renders earlier messages as a plain transcript, tool calls and results included, so
 * a Run started without a checkpoint still sees the conversation.
 *
 * @param messages The messages before the last user message (no system messages).
 * @returns The transcript, or an empty string.
 */
export function renderHistory(messages: LanguageModelV3Prompt): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === "user") {
      const text = message.content.map((
        p,
      ) => (p.type === "text" ? p.text : `[${p.mediaType} attachment]`)).join("\n");
      lines.push(`<user>\n${text}\n</user>`);
    } else if (message.role === "assistant") {
      const parts = message.content.map((p) => {
        switch (p.type) {
          case "text":
            return p.text;
          case "reasoning":
            return "";
          case "tool-call":
            return `[tool call ${p.toolName} ${JSON.stringify(projectInput(p.input))}]`;
          case "tool-result":
            return `[tool result ${p.toolName}: ${JSON.stringify(projectOutput(p.output))}]`;
          default:
            return "";
        }
      }).filter(Boolean);
      lines.push(`<assistant>\n${parts.join("\n")}\n</assistant>`);
    } else if (message.role === "tool") {
      for (const part of message.content) {
        if (part.type === "tool-result") {
          const output = JSON.stringify(projectOutput(part.output));
          lines.push(`<tool name="${part.toolName}">\n${output}\n</tool>`);
        }
      }
    }
  }
  return lines.length === 0
    ? ""
    : `<conversation_so_far>\n${lines.join("\n")}\n</conversation_so_far>`;
}

/** A tool call's input as rebuilt history shows it: a wrapped shell command unwrapped. */
function projectInput(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      typeof value === "string" ? unwrapCommand(value) : value,
    ]),
  );
}

/** A tool output as rebuilt history shows it: shell exit markers become a failed-status note. */
function projectOutput(output: LanguageModelV3ToolResultOutput): LanguageModelV3ToolResultOutput {
  return output.type === "text" || output.type === "error-text"
    ? { ...output, value: projectShellOutput(output.value) }
    : output;
}
