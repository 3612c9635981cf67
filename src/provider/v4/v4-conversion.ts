/**
 * The AI SDK 7 shapes (`LanguageModelV4`) and the AI SDK 6 shapes (`LanguageModelV3`)
 * the provider is built on, converted in one place and in both directions: V4 call
 * options to the provider's call input (the V3 prompt plus the V4 `reasoning` option),
 * and the V3 parts the provider produces to V4 parts. Prompt parts V3 has no room for
 * (custom parts, reasoning files, file references) are reported, never dropped
 * silently.
 *
 * @module
 */
import type {
  LanguageModelV3Content,
  LanguageModelV3FilePart,
  LanguageModelV3Message,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultOutput,
  SharedV3Warning,
} from "@ai-sdk/provider";
import type {
  LanguageModelV4CallOptions,
  LanguageModelV4Content,
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4StreamPart,
  LanguageModelV4ToolResultOutput,
  SharedV4Warning,
} from "@ai-sdk/provider-v4";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { CursorError } from "../../core/cursor-error.ts";
import type { CursorCallInput } from "../model-call/call-args.ts";

/** V4 call options as the provider's call input, with what could not be carried over. */
export interface ConvertedCall {
  readonly input: CursorCallInput;
  readonly warnings: readonly SharedV3Warning[];
}

/**
 * Converts AI SDK 7 call options to the provider's call input.
 *
 * @param options The V4 call options.
 * @returns The call input and warnings for prompt parts Cursor cannot take.
 * @throws {CursorError} `invalid_argument` for a file given only as a provider reference.
 *
 * @example
 * ```ts
 * import { convertCallOptionsV4 } from "./v4-conversion.ts";
 *
 * const { input } = convertCallOptionsV4({
 *   prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
 *   reasoning: "high",
 * });
 * console.assert(input.reasoning === "high" && input.prompt.length === 1);
 * ```
 */
export function convertCallOptionsV4(options: LanguageModelV4CallOptions): ConvertedCall {
  const warnings: SharedV3Warning[] = [];
  const prompt = options.prompt.map((message) => convertMessage(message, warnings));
  const { prompt: _prompt, ...rest } = options;
  // The remaining option shapes are the same in V3 and V4 (tools, tool choice, response
  // format, sampling settings, headers, abort signal, provider options).
  return { input: { ...(rest as Omit<CursorCallInput, "prompt">), prompt }, warnings };
}

function convertMessage(
  message: LanguageModelV4Message,
  warnings: SharedV3Warning[],
): LanguageModelV3Message {
  if (message.role === "system") return v3Shape<LanguageModelV3Message>(message);
  const content: unknown[] = [];
  for (const part of message.content) {
    if (part.type === "custom" || part.type === "reasoning-file") {
      warnings.push({
        type: "unsupported",
        feature: `assistant ${part.type} part`,
        details: "Cursor's history has no such part; it was left out of the prompt",
      });
    } else if (part.type === "file") content.push(convertFilePart(part));
    else if (part.type === "tool-result") {
      content.push({ ...part, output: convertToolOutput(part.output) });
    } else content.push(part);
  }
  return v3Shape<LanguageModelV3Message>({ ...message, content });
}

/**
 * A V4 value in its V3 type. The two majors describe the same JSON values (V4 marks
 * them readonly), so after the conversions above nothing differs but the type.
 */
function v3Shape<T>(value: object): T {
  return value as T;
}

function convertFilePart(part: LanguageModelV4FilePart): LanguageModelV3FilePart {
  const { data, ...rest } = part;
  switch (data.type) {
    case "data":
      return v3Shape({ ...rest, data: data.data });
    case "url":
      return v3Shape({ ...rest, data: data.url });
    case "text":
      return v3Shape({ ...rest, data: new TextEncoder().encode(data.text) });
    case "reference":
      throw referenceRefused(part.filename);
  }
}

function convertToolOutput(
  output: LanguageModelV4ToolResultOutput,
): LanguageModelV3ToolResultOutput {
  if (output.type !== "content") return v3Shape(output);
  const value: unknown[] = [];
  for (const part of output.value) {
    if (part.type === "text") value.push(part);
    else if (part.type === "custom") continue;
    else if (part.data.type === "data") {
      value.push({
        type: "file-data",
        data: typeof part.data.data === "string" ? part.data.data : base64Encode(part.data.data),
        mediaType: part.mediaType,
        ...(part.filename === undefined ? {} : { filename: part.filename }),
      });
    } else if (part.data.type === "url") {
      value.push({ type: "file-url", url: part.data.url.toString(), mediaType: part.mediaType });
    } else if (part.data.type === "text") value.push({ type: "text", text: part.data.text });
    else throw referenceRefused(part.filename);
  }
  return v3Shape({ ...output, value });
}

function referenceRefused(filename: string | undefined): CursorError {
  const name = filename === undefined ? "A file" : `The file ${JSON.stringify(filename)}`;
  return new CursorError(
    "invalid_argument",
    `${name} is given as a provider reference; Cursor takes files only as data or a URL`,
  );
}

/**
 * Converts the provider's content to AI SDK 7 content (files carry their data as
 * `{ type: "data" }`).
 *
 * @param content A V3 content part.
 * @returns The V4 content part.
 */
export function convertContentToV4(content: LanguageModelV3Content): LanguageModelV4Content {
  if (content.type === "file") return { ...content, data: { type: "data", data: content.data } };
  return content as LanguageModelV4Content;
}

/**
 * Converts the provider's stream to an AI SDK 7 stream.
 *
 * @param stream The V3 stream.
 * @param extraWarnings Warnings to add to the `stream-start` part.
 * @returns The V4 stream.
 */
export function convertStreamToV4(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  extraWarnings: readonly SharedV3Warning[],
): ReadableStream<LanguageModelV4StreamPart> {
  return stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV4StreamPart>({
      transform(part, controller) {
        if (part.type === "stream-start") {
          controller.enqueue({
            type: "stream-start",
            warnings: convertWarningsToV4([...part.warnings, ...extraWarnings]),
          });
        } else if (part.type === "file") {
          controller.enqueue({ ...part, data: { type: "data", data: part.data } });
        } else controller.enqueue(part as LanguageModelV4StreamPart);
      },
    }),
  );
}

/**
 * Converts warnings (the V3 kinds are a subset of the V4 kinds).
 *
 * @param warnings V3 warnings.
 * @returns The same warnings as V4 warnings.
 */
export function convertWarningsToV4(warnings: readonly SharedV3Warning[]): SharedV4Warning[] {
  return warnings.map((warning) => ({ ...warning }));
}
