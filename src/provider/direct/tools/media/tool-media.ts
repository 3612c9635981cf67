/**
 * Images that came with host tool results. They arrive in one of two forms: inside the
 * result (an AI SDK `content` output with `image-data` or image `file-data` parts), or, from
 * OpenCode 1.18.33 with a provider package it does not know, as a user message right after
 * the tool results that starts with the text `Attached media from tool result:` and holds
 * the images as file parts, in the order of the tool calls. Either way they belong to the
 * held Run's tool results, not to a new user turn.
 *
 * @module
 */
import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";

/** The text OpenCode opens its tool-media user message with. */
export const TOOL_MEDIA_INTRO = "Attached media from tool result:";

/** OpenCode's text result of a read that returned an image (or PDF) as an attachment. */
const READ_ATTACHMENT_TEXT = /^(Image|PDF) read successfully$/;

/** An image as the host gave it: bytes (or undecodable data) and the claimed type. */
export interface HostToolImage {
  /** The bytes; `undefined` when the host gave a URL or undecodable data. */
  readonly data: Uint8Array | undefined;
  readonly mediaType: string;
}

/**
 * Whether a message is OpenCode's tool-media message.
 *
 * @param message A prompt message.
 * @returns `true` for a user message opening with {@link TOOL_MEDIA_INTRO}.
 *
 * @example
 * ```ts
 * import { isToolMediaMessage } from "./tool-media.ts";
 *
 * console.assert(isToolMediaMessage({ role: "user", content: [{ type: "text", text: "Attached media from tool result:" }] }));
 * ```
 */
export function isToolMediaMessage(message: LanguageModelV3Message | undefined): boolean {
  if (message?.role !== "user") return false;
  const [first, ...rest] = message.content;
  return first?.type === "text" && first.text === TOOL_MEDIA_INTRO &&
    rest.every((part) => part.type === "file");
}

/**
 * The images of the trailing tool results, by tool call id. Images inside a result are
 * its own. Those of a tool-media message are handed out in order: one to each result
 * that says it read an image (`Image read successfully`), the rest to the last other
 * result (a host tool such as an MCP tool returning images), or to the last result.
 *
 * @param prompt The host's prompt.
 * @param results The trailing tool results (see `trailingToolResults`).
 * @returns Images per tool call id (only ids that have some).
 *
 * @example
 * ```ts
 * import { toolResultImages } from "./tool-media.ts";
 *
 * const result = { type: "tool-result" as const, toolCallId: "c1", toolName: "read", output: { type: "text" as const, value: "Image read successfully" } };
 * const images = toolResultImages([
 *   { role: "tool", content: [result] },
 *   { role: "user", content: [{ type: "text", text: "Attached media from tool result:" }, { type: "file", mediaType: "image/png", data: "iVBORw0KGgo=" }] },
 * ], [result]);
 * console.assert(images.get("c1")?.length === 1);
 * ```
 */
export function toolResultImages(
  prompt: LanguageModelV3Prompt,
  results: readonly LanguageModelV3ToolResultPart[],
): Map<string, HostToolImage[]> {
  const byId = new Map<string, HostToolImage[]>();
  const add = (id: string, image: HostToolImage) => byId.set(id, [...byId.get(id) ?? [], image]);
  for (const result of results) {
    for (const image of outputImages(result)) add(result.toolCallId, image);
  }
  const last = prompt[prompt.length - 1];
  if (results.length === 0 || last?.role !== "user" || !isToolMediaMessage(last)) return byId;
  const attached = last.content.flatMap((part) =>
    part.type === "file" ? [{ data: fileData(part.data), mediaType: part.mediaType }] : []
  );
  const readers = results.filter((r) => READ_ATTACHMENT_TEXT.test(textOf(r)));
  const others = results.filter((r) => !readers.includes(r));
  const rest = others[others.length - 1] ?? results[results.length - 1];
  attached.forEach((image, index) => {
    const owner = readers[index] ?? rest;
    if (owner !== undefined) add(owner.toolCallId, image);
  });
  return byId;
}

function outputImages(result: LanguageModelV3ToolResultPart): HostToolImage[] {
  if (result.output.type !== "content") return [];
  return result.output.value.flatMap((part): HostToolImage[] => {
    switch (part.type) {
      case "image-data":
        return [{ data: fileData(part.data), mediaType: part.mediaType }];
      case "file-data":
        return part.mediaType.startsWith("image/")
          ? [{ data: fileData(part.data), mediaType: part.mediaType }]
          : [];
      default:
        return [];
    }
  });
}

function textOf(result: LanguageModelV3ToolResultPart): string {
  return result.output.type === "text" ? result.output.value.trim() : "";
}

function fileData(data: unknown): Uint8Array | undefined {
  if (data instanceof Uint8Array) return data;
  if (typeof data !== "string") return undefined;
  try {
    const binary = atob(data.replace(/\s+/g, ""));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
}
