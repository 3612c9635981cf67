/**
 * Structured output (`generateObject`, `Output.object`, a JSON `responseFormat`),
 * emulated honestly: Cursor's agent has no JSON mode, so the schema goes to the model as
 * an instruction in the call's user message, the answer's text is held back until the
 * turn ends, its JSON is taken out (a code fence or prose around it is dropped) and
 * checked against the schema, and the text part carries exactly that JSON. An answer
 * without JSON, or with JSON that breaks the schema, ends the stream with a `bad_output`
 * error saying where, never a silently wrong object.
 *
 * @module
 */
import type {
  LanguageModelV3CallOptions,
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
} from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import { type JsonSchemaLike, schemaMismatch } from "./json-schema-check.ts";

/** What a JSON response format asks for. */
export interface StructuredOutput {
  readonly schema: JsonSchemaLike | undefined;
  readonly name: string | undefined;
  readonly description: string | undefined;
}

/**
 * The structured output a call asks for, if any.
 *
 * @param options The call options.
 * @returns The request, or `undefined` for text output.
 */
export function structuredOutputOf(
  options: LanguageModelV3CallOptions,
): StructuredOutput | undefined {
  const format = options.responseFormat;
  if (format?.type !== "json") return undefined;
  return {
    schema: format.schema as JsonSchemaLike | undefined,
    name: format.name,
    description: format.description,
  };
}

/**
 * The instruction the model gets: answer with JSON only, and the schema between
 * `<json-schema>` tags.
 *
 * @param output The request.
 * @returns The instruction text.
 *
 * @example
 * ```ts
 * import { structuredOutputInstruction } from "./structured-output.ts";
 *
 * const text = structuredOutputInstruction({ schema: { type: "object" }, name: "recipe", description: undefined });
 * console.assert(text.includes('<json-schema>{"type":"object"}</json-schema>'));
 * ```
 */
export function structuredOutputInstruction(output: StructuredOutput): string {
  const what = [
    output.name === undefined ? undefined : `It is "${output.name}"`,
    output.description,
  ].filter((line) => line !== undefined).join(": ");
  return [
    "Answer with exactly one JSON value and nothing else: no prose, no code fence, no tool calls.",
    ...(what === "" ? [] : [what]),
    output.schema === undefined
      ? "Any JSON value is accepted."
      : `The value must match this JSON Schema: <json-schema>${
        JSON.stringify(output.schema)
      }</json-schema>`,
  ].join("\n");
}

/**
 * The prompt with the instruction added to its last user message (a prompt that ends
 * otherwise, e.g. with tool results, is left as it is: the instruction went with the
 * user message that started the turn).
 *
 * @param prompt The call's prompt.
 * @param output The request.
 * @returns The prompt the backend gets.
 */
export function withStructuredOutputInstruction(
  prompt: LanguageModelV3Prompt,
  output: StructuredOutput,
): LanguageModelV3Prompt {
  const last = prompt[prompt.length - 1];
  if (last?.role !== "user") return prompt;
  const text = structuredOutputInstruction(output);
  return [...prompt.slice(0, -1), {
    ...last,
    content: [...last.content, { type: "text", text: `\n\n${text}` }],
  }];
}

/**
 * The JSON value in a model's answer: the whole text, else a fenced block, else the
 * span from the first `{` or `[` to the last `}` or `]`.
 *
 * @param text The answer.
 * @returns The parsed value.
 * @throws {CursorError} `bad_output` when no JSON value can be read.
 *
 * @example
 * ```ts
 * import { extractJson } from "./structured-output.ts";
 *
 * console.assert((extractJson('Sure: {"a": 1} as asked') as { a: number }).a === 1);
 * ```
 */
export function extractJson(text: string): unknown {
  const candidates = [text.trim()];
  const fenced = /```(?:json)?\s*\n([\s\S]*?)\n?```/i.exec(text);
  if (fenced?.[1] !== undefined) candidates.push(fenced[1].trim());
  const start = text.search(/[[{]/);
  const end = Math.max(text.lastIndexOf("}"), text.lastIndexOf("]"));
  if (start >= 0 && end > start) candidates.push(text.slice(start, end + 1));
  for (const candidate of candidates) {
    try {
      return JSON.parse(candidate);
    } catch {
      // Try the next reading.
    }
  }
  throw new CursorError(
    "bad_output",
    `The model's answer holds no JSON value (Cursor cannot enforce JSON output): ${
      JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text)
    }`,
  );
}

/**
 * The stream with its text held back until the finish, then replaced by the checked
 * JSON (one text part). A turn that ends for tool calls passes its text through.
 *
 * @param stream The backend's parts.
 * @param output The request.
 * @returns The parts the host sees.
 */
export function structuredOutputStream(
  stream: ReadableStream<LanguageModelV3StreamPart>,
  output: StructuredOutput,
): ReadableStream<LanguageModelV3StreamPart> {
  let text = "";
  let textId: string | undefined;
  const held: LanguageModelV3StreamPart[] = [];
  return stream.pipeThrough(
    new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
      transform(part, controller) {
        if (part.type === "text-start" || part.type === "text-delta" || part.type === "text-end") {
          textId ??= part.id;
          if (part.type === "text-delta") text += part.delta;
          held.push(part);
          return;
        }
        if (part.type !== "finish") return controller.enqueue(part);
        if (part.finishReason.unified === "tool-calls") {
          for (const heldPart of held) controller.enqueue(heldPart);
          return controller.enqueue(part);
        }
        try {
          const json = JSON.stringify(checkedJson(text, output));
          const id = textId ?? "structured-output";
          controller.enqueue({ type: "text-start", id });
          controller.enqueue({ type: "text-delta", id, delta: json });
          controller.enqueue({ type: "text-end", id });
          controller.enqueue(part);
        } catch (error) {
          controller.enqueue({ type: "error", error });
        }
      },
    }),
  );
}

function checkedJson(text: string, output: StructuredOutput): unknown {
  const value = extractJson(text);
  if (output.schema === undefined) return value;
  const mismatch = schemaMismatch(value, output.schema);
  if (mismatch === undefined) return value;
  throw new CursorError(
    "bad_output",
    `The model's JSON does not match the schema (Cursor cannot enforce it): ${mismatch}`,
  );
}
