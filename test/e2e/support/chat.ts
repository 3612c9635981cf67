/**
 * Chat helpers over `@opencode-ai/sdk`: create a session, send a prompt (bounded), and
 * read the parts of the answer.
 *
 * @module
 */
import type { OpencodeClient, Part } from "@opencode-ai/sdk";
import { within } from "./opencode.ts";

/** The answer to one prompt. */
export interface Answer {
  readonly text: string;
  readonly parts: Part[];
  readonly error: unknown;
}

/**
 * Creates a session with a title (so OpenCode runs no title-generation turn).
 *
 * @param client The SDK client.
 * @returns The session id.
 */
export async function newSession(client: OpencodeClient): Promise<string> {
  const created = await within(
    client.session.create({ body: { title: "cursor e2e" } }),
    15_000,
    "session.create",
  );
  const id = created.data?.id;
  if (id === undefined) throw new Error(`session.create failed: ${JSON.stringify(created.error)}`);
  return id;
}

/**
 * Sends a prompt and waits for the turn to end.
 *
 * @param client The SDK client.
 * @param session The session id.
 * @param text The prompt.
 * @param model The Cursor model id.
 * @param timeoutMs Limit for the whole turn.
 * @returns The answer's text, parts and error.
 */
export async function prompt(
  client: OpencodeClient,
  session: string,
  text: string,
  model = "composer-1",
  timeoutMs = 60_000,
): Promise<Answer> {
  const response = await within(
    client.session.prompt({
      path: { id: session },
      body: { model: { providerID: "cursor", modelID: model }, parts: [{ type: "text", text }] },
    }),
    timeoutMs,
    `prompt ${JSON.stringify(text.slice(0, 40))}`,
  );
  const parts = response.data?.parts ?? [];
  const info = response.data?.info as { error?: unknown } | undefined;
  return {
    text: parts.flatMap((part) => (part.type === "text" ? [part.text] : [])).join(""),
    parts,
    error: response.error ?? info?.error,
  };
}

/**
 * Every part of every message of a session, oldest first.
 *
 * @param client The SDK client.
 * @param session The session id.
 * @returns The parts.
 */
export async function sessionParts(client: OpencodeClient, session: string): Promise<Part[]> {
  const messages = await within(
    client.session.messages({ path: { id: session } }),
    15_000,
    "session.messages",
  );
  return (messages.data ?? []).flatMap((message) => message.parts);
}

/**
 * Sends a prompt with a model variant (the v1 SDK's types have no `variant` field, the
 * 1.18.33 server takes it at the top of the body), bounded like {@link prompt}.
 *
 * @param serverUrl The server's URL.
 * @param directory The project directory.
 * @param session The session id.
 * @param request Model id, variant and text.
 * @returns The answer's text and the error OpenCode recorded, if any.
 */
export async function promptWithVariant(
  serverUrl: string,
  directory: string,
  session: string,
  request: { model: string; variant: string; text: string },
): Promise<{ text: string; error: unknown }> {
  const response = await fetch(
    `${serverUrl}/session/${session}/message?directory=${encodeURIComponent(directory)}`,
    {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: { providerID: "cursor", modelID: request.model },
        variant: request.variant,
        parts: [{ type: "text", text: request.text }],
      }),
      signal: AbortSignal.timeout(60_000),
    },
  );
  const body = await response.json() as {
    info?: { error?: unknown };
    parts?: { type: string; text?: string }[];
    name?: string;
    data?: unknown;
  };
  const text = (body.parts ?? []).flatMap((part) => part.type === "text" ? [part.text ?? ""] : [])
    .join("");
  const error = body.info?.error ?? (body.name === undefined ? undefined : body);
  return { text, error };
}
