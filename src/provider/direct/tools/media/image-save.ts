/**
 * Cursor-generated images. Cursor generates an image on its servers, then writes it like
 * any file: a `write_args` whose `file_bytes` hold the image. A host's text `write` tool
 * cannot carry bytes, so the bytes are staged outside the conversation and the host's
 * `cursor_image_save` tool (registered by the classic OpenCode plugin) commits them under
 * the host's own edit permission. The tool takes only the staged image's opaque id: no
 * model can hand it a path or content of its own.
 *
 * @module
 */
import type { JSONObject } from "@ai-sdk/provider";
import type { HostTools } from "../host-tools.ts";

/** The host tool that commits a staged image. */
export const IMAGE_SAVE_TOOL = "cursor_image_save";

/** An image waiting for the save tool. */
export interface StagedImage {
  /** Where Cursor asked the image to go (absolute). */
  readonly path: string;
  /** The image file's bytes. */
  readonly bytes: Uint8Array;
}

/** Where generated image bytes wait between the provider and the save tool. */
export interface ImageStaging {
  /**
   * Stages an image.
   *
   * @returns An opaque, single-use id.
   */
  stage(image: StagedImage): string;
  /**
   * Takes a staged image out (a second take of the same id finds nothing).
   *
   * @returns The image, or `undefined` for an unknown or used id.
   */
  take(id: string): Promise<StagedImage | undefined>;
}

/** The verdict on a binary write. */
export type ImageWriteDecision =
  | {
    readonly type: "call";
    readonly toolName: string;
    readonly input: JSONObject;
    readonly size: number;
  }
  | { readonly type: "refuse"; readonly reason: string };

/**
 * Hands a binary write to the image save tool: stages the bytes and names the call.
 *
 * @param path The absolute target path.
 * @param bytes The file bytes.
 * @param tools The host tools of this call.
 * @param staging The staging area, when the platform has one.
 * @returns The save tool call, or a refusal naming what is missing.
 *
 * @example
 * ```ts
 * import { classifyHostTools } from "../host-tools.ts";
 * import { bridgeImageWrite, type ImageStaging } from "./image-save.ts";
 *
 * const staged = new Map();
 * const staging: ImageStaging = {
 *   stage: (image) => (staged.set("id1", image), "id1"),
 *   take: (id) => Promise.resolve(staged.get(id)),
 * };
 * const tools = classifyHostTools([{ type: "function", name: "cursor_image_save", inputSchema: { type: "object" } }]);
 * const decision = bridgeImageWrite("/ws/cat.png", new Uint8Array([137, 80]), tools, staging);
 * console.assert(decision.type === "call" && decision.input.image_id === "id1");
 * ```
 */
export function bridgeImageWrite(
  path: string,
  bytes: Uint8Array,
  tools: HostTools,
  staging: ImageStaging | undefined,
): ImageWriteDecision {
  const tool = tools.all.get(IMAGE_SAVE_TOOL);
  if (tool === undefined || staging === undefined) {
    return {
      type: "refuse",
      reason:
        `Binary file writes need the host's ${IMAGE_SAVE_TOOL} tool, which is not available in this session (load the classic OpenCode plugin entry)`,
    };
  }
  const id = staging.stage({ path, bytes });
  return { type: "call", toolName: tool.name, input: { image_id: id }, size: bytes.length };
}

/**
 * Whether the host can save generated images in this call (so generation is approved).
 *
 * @param tools The host tools of this call.
 * @param staging The staging area, when the platform has one.
 * @returns `true` when both the save tool and a staging area exist.
 */
export function canSaveImages(tools: HostTools, staging: ImageStaging | undefined): boolean {
  return staging !== undefined && tools.all.has(IMAGE_SAVE_TOOL);
}
