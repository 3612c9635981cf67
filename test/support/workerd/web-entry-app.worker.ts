/**
 * A Worker app (bundled for workerd) built on the package's web entry: every request is
 * one chat turn by a provider made in that request (nothing survives between requests
 * but the Durable Object store), against the Cursor service at `env.CURSOR_API_BASE_URL`
 * (the emulator). Answers the turn's text and the provider's debug lines.
 */
import { createCursor } from "../../../mod.ts";
import {
  createDurableObjectSnapshotStore,
  CursorSnapshotObject,
  type DurableObjectNamespaceLike,
} from "../../../stores/cloudflare.ts";
import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from "@ai-sdk/provider";

export { CursorSnapshotObject };

interface Env {
  readonly CURSOR_SNAPSHOTS: DurableObjectNamespaceLike;
  readonly CURSOR_API_BASE_URL: string;
}

/** One turn: the host session and the whole history (the host resends it every turn). */
export interface TurnRequest {
  readonly sessionId: string;
  readonly messages: readonly { role: "user" | "assistant"; text: string }[];
  /** `false`: no shared store (the web entry's default, memory of this request only). */
  readonly shareSnapshots: boolean;
  /** The host prompt as it is (tool calls and results), instead of `messages`. */
  readonly prompt?: LanguageModelV3Prompt;
  /** Offer the host's `bash` tool (the host runs it; the step ends at its call). */
  readonly bash?: boolean;
}

/** What a turn answered: its text, the tool calls it asked for, and how it finished. */
export interface TurnResponse {
  readonly text?: string;
  readonly toolCalls?: readonly { toolCallId: string; toolName: string; input: string }[];
  readonly finishReason?: string;
  readonly error?: string;
  readonly lines: string[];
}

/** The host's shell tool, declared only. */
const BASH: LanguageModelV3FunctionTool = {
  type: "function",
  name: "bash",
  description: "Run a shell command",
  inputSchema: {
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
  },
};

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const turn = await request.json() as TurnRequest;
    const lines: string[] = [];
    const cursor = createCursor({
      apiKey: "crsr_test_key_0123456789",
      apiBaseURL: env.CURSOR_API_BASE_URL,
      allowLoopback: true,
      env: {},
      debug: { enabled: true, line: (text) => lines.push(text) },
      ...(turn.shareSnapshots
        ? { conversationSnapshots: createDurableObjectSnapshotStore(env.CURSOR_SNAPSHOTS) }
        : {}),
    });
    const prompt: LanguageModelV3Prompt = turn.prompt ??
      turn.messages.map((message) =>
        message.role === "user"
          ? { role: "user", content: [{ type: "text", text: message.text }] }
          : { role: "assistant", content: [{ type: "text", text: message.text }] }
      );
    try {
      const result = await cursor("gpt-5").doGenerate({
        prompt,
        providerOptions: { cursor: { sessionId: turn.sessionId } },
        ...(turn.bash ? { tools: [BASH] } : {}),
      });
      const text = result.content.map((part) => part.type === "text" ? part.text : "").join("");
      const toolCalls = result.content.flatMap((part) =>
        part.type === "tool-call"
          ? [{ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input }]
          : []
      );
      const finishReason = result.finishReason.unified;
      return Response.json({ text, toolCalls, finishReason, lines } satisfies TurnResponse);
    } catch (error) {
      return Response.json({ error: String(error), lines }, { status: 500 });
    }
  },
};
