/**
 * What a held agent Run reports to the provider, already stripped of protocol
 * bookkeeping (KV answers, request-context probes and heartbeats are handled inside).
 *
 * @module
 */
import type { ConversationTokenDetails } from "../gen/agent/v1/conversation_state_pb.ts";
import type { ExecServerMessage } from "../gen/agent/v1/exec_pb.ts";
import type { TodoItem } from "../gen/agent/v1/common_pb.ts";
import type { InteractionQuery } from "../gen/agent/v1/interaction_query_pb.ts";
import type { ToolCall } from "../gen/agent/v1/tool_call_pb.ts";

/** Cursor's five TurnEnded counters, as numbers. */
export interface TurnCounters {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  /** Which counters were present on the wire (absent ones read 0). */
  readonly present: readonly ("input" | "output" | "cacheRead" | "cacheWrite" | "reasoning")[];
}

/** One event of a Run. */
export type RunEvent =
  | { readonly type: "text-delta"; readonly text: string; readonly serverNotice: boolean }
  | { readonly type: "thinking-delta"; readonly text: string }
  | { readonly type: "thinking-completed"; readonly durationMs: number }
  | { readonly type: "step"; readonly phase: "started" | "completed"; readonly stepId: bigint }
  | {
    readonly type: "tool-display";
    readonly phase: "started" | "completed";
    readonly callId: string;
    readonly tool: string;
    /** The typed display payload (arguments; on completion also the result). */
    readonly toolCall?: ToolCall | undefined;
  }
  | {
    readonly type: "checkpoint";
    readonly bytes: Uint8Array;
    readonly tokenDetails: ConversationTokenDetails | undefined;
    /** The checkpoint's todo list, read from the blob store (undefined when it has none or a blob is missing). */
    readonly todos: readonly TodoItem[] | undefined;
  }
  | { readonly type: "turn-ended"; readonly counters: TurnCounters }
  | { readonly type: "exec"; readonly exec: ExecServerMessage }
  | { readonly type: "exec-abort"; readonly id: number }
  /** A question, mode switch or plan waiting for a person; answer with `AgentRun.answerInteraction`. */
  | { readonly type: "interaction"; readonly query: InteractionQuery }
  | { readonly type: "warning"; readonly message: string };
