/**
 * A conversation as the emulated service holds it during a Run: the model transcript as
 * JSON roots (system, injected context, user, assistant, tool) and the turn/step graph,
 * every piece a content-addressed blob. Builds checkpoints
 * (`ConversationStateStructure`) and their token details.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import {
  type ConversationStateStructure,
  ConversationStateStructureSchema,
  type ConversationStep,
  ConversationTurnStructureSchema,
} from "../../../gen/agent/v1/conversation_state_pb.ts";
import { AgentMode } from "../../../gen/agent/v1/common_pb.ts";
import type { UserMessage } from "../../../gen/agent/v1/user_message_pb.ts";
import { McpToolDefinitionSchema } from "../../../gen/agent/v1/mcp_pb.ts";
import type { RequestContext } from "../../../gen/agent/v1/request_context_pb.ts";
import { estimateTokens } from "./prompt-cache.ts";

/** One JSON root of the transcript. */
export interface RootMessage {
  /** The blob id (32 bytes), or the content itself for inline seed roots. */
  readonly id: Uint8Array;
  readonly bytes: Uint8Array;
  readonly json: RootJson;
}

/** The parsed shape of a root (AI-SDK-like messages). */
export interface RootJson {
  readonly role: string;
  readonly content: unknown;
  readonly id?: string;
  readonly providerOptions?: {
    readonly emulator?: { readonly step?: number; readonly injected?: boolean };
  };
}

/** One step of a turn. */
export interface StepEntry {
  readonly id: Uint8Array;
  readonly step: ConversationStep;
}

/** One turn. */
export interface TurnEntry {
  readonly userMessageId: Uint8Array;
  readonly userMessage: UserMessage;
  readonly steps: StepEntry[];
  readonly requestId: string;
  /** The current turn blob id (changes whenever steps are added). */
  blobId: Uint8Array | undefined;
}

/** The transcript of one conversation. */
export interface Transcript {
  roots: RootMessage[];
  turns: TurnEntry[];
}

const encoder = new TextEncoder();

/** Encodes a root message as the JSON bytes stored in its blob. */
export function rootBytes(json: RootJson): Uint8Array {
  return encoder.encode(JSON.stringify(json));
}

/** Parses root bytes; non-JSON content becomes a user text root. */
export function parseRoot(bytes: Uint8Array): RootJson {
  const text = new TextDecoder().decode(bytes);
  try {
    const value: unknown = JSON.parse(text);
    if (
      typeof value === "object" && value !== null &&
      typeof (value as { role?: unknown }).role === "string"
    ) {
      return value as RootJson;
    }
  } catch {
    // fall through: inline text
  }
  return { role: "user", content: text };
}

/** The plain text of a root (text parts joined). */
export function rootText(json: RootJson): string {
  if (typeof json.content === "string") return json.content;
  if (!Array.isArray(json.content)) return "";
  return json.content
    .map((part: unknown) => {
      if (typeof part !== "object" || part === null) return "";
      const record = part as Record<string, unknown>;
      if (record.type === "text" && typeof record.text === "string") return record.text;
      if (record.type === "tool-result" && typeof record.result === "string") return record.result;
      return "";
    })
    .filter((text: string) => text !== "")
    .join("\n");
}

/** Whether a root is a (non-injected) user message. */
export function isUserRoot(root: RootMessage): boolean {
  return root.json.role === "user" && root.json.providerOptions?.emulator?.injected !== true;
}

/** Encodes a turn's current structure (user message + step ids). */
export function turnBytes(turn: TurnEntry): Uint8Array {
  return toBinary(
    ConversationTurnStructureSchema,
    create(ConversationTurnStructureSchema, {
      turn: {
        case: "agentConversationTurn",
        value: {
          userMessage: turn.userMessageId,
          steps: turn.steps.map((step) => step.id),
          requestId: turn.requestId,
        },
      },
    }),
  );
}

/** Token details inputs. */
export interface TokenDetailsInput {
  readonly usedTokens: number;
  readonly maxTokens: number;
  readonly systemBytes: number;
  readonly context: RequestContext | undefined;
}

/**
 * Builds a checkpoint.
 *
 * @param transcript The transcript (roots and turns with blob ids).
 * @param pending JSON of tool calls awaiting results (non-empty = staged).
 * @param tokens Inputs of the token details.
 * @param startedMs When the conversation started.
 * @returns The checkpoint message.
 */
export function buildCheckpoint(
  transcript: Transcript,
  pending: readonly string[],
  tokens: TokenDetailsInput,
  startedMs: number,
): ConversationStateStructure {
  const turnIds = transcript.turns.flatMap((turn) =>
    turn.blobId === undefined ? [] : [turn.blobId]
  );
  return create(ConversationStateStructureSchema, {
    rootPromptMessagesJson: transcript.roots.map((root) => root.id),
    turns: turnIds,
    pendingToolCalls: [...pending],
    tokenDetails: tokenDetails(tokens),
    mode: AgentMode.AGENT,
    conversationStartedTimestampMs: BigInt(startedMs),
  });
}

function tokenDetails(input: TokenDetailsInput) {
  const context = input.context;
  const bytes = (texts: readonly string[]) =>
    texts.reduce((sum, text) => sum + encoder.encode(text).length, 0);
  const toolBytes = (context?.tools ?? []).reduce(
    (sum, tool) => sum + toBinary(McpToolDefinitionSchema, tool).length,
    0,
  );
  const parts: [string, string, number][] = [
    ["system_prompt", "System prompt", input.systemBytes],
    ["tools", "Tools", toolBytes],
    ["rules", "Rules", bytes((context?.rules ?? []).map((rule) => rule.content))],
    [
      "skills",
      "Skills",
      bytes(
        (context?.agentSkills ?? []).map((s) => `${s.fullPath}\n${s.description}\n${s.content}`),
      ),
    ],
    ["mcp", "MCP", bytes((context?.mcpInstructions ?? []).map((item) => item.instructions))],
    [
      "subagents",
      "Subagents",
      bytes((context?.customSubagents ?? []).map((agent) => agent.prompt)),
    ],
    ["summarized_conversation", "Summarized conversation", 0],
  ];
  let assigned = 0;
  const categories = parts.map(([id, label, size]) => {
    const estimated = Math.min(estimateTokens(size), Math.max(0, input.usedTokens - assigned));
    assigned += estimated;
    // A zero count stays off the wire (the field is optional in Cursor's schema).
    return { id, label, estimatedTokens: estimated, ...(size > 0 ? { characterCount: size } : {}) };
  });
  categories.push({
    id: "conversation",
    label: "Conversation",
    estimatedTokens: Math.max(0, input.usedTokens - assigned),
  });
  return {
    usedTokens: input.usedTokens,
    maxTokens: input.maxTokens,
    breakdown: { totalUsedTokens: input.usedTokens, maxTokens: input.maxTokens, categories },
  };
}

/** Index of the last user root after the system root (or `roots.length` when none). */
export function lastUserIndex(roots: readonly RootMessage[]): number {
  for (let index = roots.length - 1; index > 0; index--) {
    const root = roots[index];
    if (root !== undefined && isUserRoot(root)) return index;
  }
  return roots.length;
}

/** Whether a root is an assistant answer without tool calls (a finished turn). */
export function isFinalAssistant(root: RootMessage | undefined): boolean {
  if (root?.json.role !== "assistant" || !Array.isArray(root.json.content)) return false;
  return !root.json.content.some((part: unknown) =>
    typeof part === "object" && part !== null && (part as { type?: unknown }).type === "tool-call"
  );
}

/** How many tool-calling model steps the given roots record. */
export function countToolSteps(roots: readonly RootMessage[]): number {
  const steps = new Set<number>();
  for (const root of roots) {
    const step = root.json.providerOptions?.emulator?.step;
    if (root.json.role === "assistant" && step !== undefined) steps.add(step);
  }
  return steps.size;
}
