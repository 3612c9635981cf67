/**
 * Host tool images into Cursor's tool results. A read's image becomes the read's bytes
 * (`ReadSuccess.data`); a host tool's images become `McpImageContent` items after its
 * text. Each image is checked first: at most 20 MiB, its type taken from its bytes (PNG,
 * JPEG, GIF or WebP; the claimed type is not trusted), and one already sent in this
 * conversation (same SHA-256) is not sent again. A model without image input, an image
 * over the bound or bytes that are no image get a short text note instead, never a
 * failure. Other results cannot carry an image and get the note in their text.
 *
 * @module
 */
import { bytesToHex, sha256 } from "../../../../core/bytes.ts";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ReadSuccessSchema } from "../../../../gen/agent/v1/exec_file_pb.ts";
import type { McpSuccessSchema } from "../../../../gen/agent/v1/exec_mcp_pb.ts";
import type { ExecResultInit } from "../shell/shell-results.ts";

type ReadSuccessInit = MessageInitShape<typeof ReadSuccessSchema>;
type McpSuccessInit = MessageInitShape<typeof McpSuccessSchema>;
import type { HostToolImage } from "./tool-media.ts";

/** Largest image sent with a tool result: 20 MiB. */
const MAX_TOOL_IMAGE_BYTES = 20 * 1024 * 1024;

/** What the images of a result are checked against. */
export interface ToolImageScope {
  /** The model takes image input. */
  readonly acceptsImages: boolean;
  /** The model id, for the note. */
  readonly modelId: string;
  /** SHA-256 (hex) of the images this conversation already sent; new ones are added. */
  readonly sent: Set<string>;
}

/** Images that came with host tool results, by tool call id, and what they are checked against. */
export interface ResultMedia {
  readonly images: ReadonlyMap<string, readonly HostToolImage[]>;
  readonly scope: ToolImageScope;
}

/** An image ready to send, or the note sent in its place. */
type Checked =
  | { readonly kind: "image"; readonly data: Uint8Array; readonly mimeType: string }
  | { readonly kind: "note"; readonly text: string };

const SIGNATURES: readonly (readonly [string, readonly number[], number])[] = [
  ["image/png", [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0],
  ["image/jpeg", [0xff, 0xd8, 0xff], 0],
  ["image/gif", [0x47, 0x49, 0x46, 0x38], 0],
  ["image/webp", [0x57, 0x45, 0x42, 0x50], 8],
];

/**
 * The image type bytes start with.
 *
 * @param bytes The bytes.
 * @returns `image/png`, `image/jpeg`, `image/gif`, `image/webp`, or `undefined`.
 *
 * @example
 * ```ts
 * import { sniffImageType } from "./tool-images.ts";
 *
 * console.assert(sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])) === "image/jpeg");
 * console.assert(sniffImageType(new TextEncoder().encode("hello")) === undefined);
 * ```
 */
export function sniffImageType(bytes: Uint8Array): string | undefined {
  const riff = bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x46;
  for (const [type, signature, offset] of SIGNATURES) {
    if (type === "image/webp" && !riff) continue;
    if (signature.every((byte, index) => bytes[offset + index] === byte)) return type;
  }
  return undefined;
}

/**
 * Adds a result's images to its exec result message(s).
 *
 * @param messages The exec result message(s) built from the result's text.
 * @param images The result's images.
 * @param scope The model's image support and the conversation's sent images.
 * @returns The messages with the images (or notes) in them.
 *
 * @example
 * ```ts
 * import { withToolImages } from "./tool-images.ts";
 *
 * const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0]);
 * const read = { case: "readResult" as const, value: { result: { case: "success" as const, value: { path: "/a.png", output: { case: "content" as const, value: "Image read successfully" } } } } };
 * const [out] = await withToolImages([read], [{ data: png, mediaType: "image/png" }], { acceptsImages: true, modelId: "gpt-5", sent: new Set() });
 * console.assert(out?.case === "readResult" && out.value.result?.case === "success" && out.value.result.value.output?.case === "data");
 * ```
 */
export async function withToolImages(
  messages: readonly ExecResultInit[],
  images: readonly HostToolImage[],
  scope: ToolImageScope,
): Promise<ExecResultInit[]> {
  if (images.length === 0) return [...messages];
  const checked: Checked[] = [];
  for (const image of images) checked.push(await checkImage(image, scope));
  return messages.map((message, index) =>
    index === messages.length - 1 ? attach(message, checked) : message
  );
}

async function checkImage(image: HostToolImage, scope: ToolImageScope): Promise<Checked> {
  const data = image.data;
  const claimed = JSON.stringify(image.mediaType);
  if (data === undefined) {
    return note(`An image (${claimed}) came as a URL or undecodable data and was left out`);
  }
  if (data.length > MAX_TOOL_IMAGE_BYTES) {
    return note(`An image of ${data.length} bytes is over the 20 MiB limit and was left out`);
  }
  const mimeType = sniffImageType(data);
  if (mimeType === undefined) {
    return note(`An attachment (${claimed}, ${data.length} bytes) is no image and was left out`);
  }
  if (!scope.acceptsImages) {
    return note(
      `An image (${mimeType}, ${data.length} bytes) was left out: model "${scope.modelId}" does not accept images`,
    );
  }
  const hash = bytesToHex(await sha256(data));
  if (scope.sent.has(hash)) {
    return note(`The same image (${mimeType}, sha256 ${hash.slice(0, 16)}) was sent before`);
  }
  scope.sent.add(hash);
  return { kind: "image", data, mimeType };
}

function note(text: string): Checked {
  return { kind: "note", text: `[${text}]` };
}

function attach(message: ExecResultInit, checked: readonly Checked[]): ExecResultInit {
  if (message.case === "readResult" && message.value.result?.case === "success") {
    return readWithImages(message.value.result.value as ReadSuccessInit, checked);
  }
  if (message.case === "mcpResult" && message.value.result?.case === "success") {
    const success = message.value.result.value as McpSuccessInit;
    const items = checked.map((item) =>
      item.kind === "image"
        ? {
          content: { case: "image" as const, value: { data: item.data, mimeType: item.mimeType } },
        }
        : { content: { case: "text" as const, value: { text: item.text } } }
    );
    const value: McpSuccessInit = {
      content: [...success.content ?? [], ...items],
      isError: success.isError ?? false,
    };
    return { case: "mcpResult", value: { result: { case: "success", value } } };
  }
  return message;
}

function readWithImages(success: ReadSuccessInit, checked: readonly Checked[]): ExecResultInit {
  const [first] = checked;
  if (first?.kind === "image") {
    const value: ReadSuccessInit = {
      ...success,
      output: { case: "data", value: first.data },
      totalLines: 0,
      fileSize: BigInt(first.data.length),
      truncated: false,
    };
    return { case: "readResult", value: { result: { case: "success", value } } };
  }
  const text = success.output?.case === "content" ? success.output.value ?? "" : "";
  const notes = checked.flatMap((item) => (item.kind === "note" ? [item.text] : []));
  const value: ReadSuccessInit = {
    ...success,
    output: { case: "content", value: [text, ...notes].join("\n") },
  };
  return { case: "readResult", value: { result: { case: "success", value } } };
}
