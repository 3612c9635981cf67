/**
 * One step of an interaction as the bridge plans it (answer Cursor, or call one more host
 * tool), what an answer changes beyond the Run (stop this Run's work, Cursor's mode, a plan
 * to build, a notice for the person), and the helpers that build steps.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { JSONObject } from "@ai-sdk/provider";
import {
  type InteractionResponse,
  InteractionResponseSchema,
} from "../../../gen/agent/v1/interaction_query_pb.ts";
import type { HostTools } from "../tools/host-tools.ts";
import type { ToolResultText } from "../tools/tool-result-text.ts";
import type { ImageStaging } from "../tools/media/image-save.ts";
import { type HostQuestion, questionInput } from "./question-tool.ts";
import type { RuleBlock, SessionRules } from "./session-rules.ts";

/** A plan the person approved for building. */
export interface ApprovedPlan {
  /** The `plan_uri` Cursor was answered with (the saved file's path, or empty). */
  readonly uri: string;
  /** The plan's text. */
  readonly content: string;
}

/** What an answer changes beyond the Run: the turn, Cursor's mode, what the person sees. */
export interface InteractionEffects {
  /** No further work of this Run runs: later tool calls are refused with this reason. */
  readonly stopWork?: string;
  /** Cursor's mode from now on (`plan`, `agent`, …). */
  readonly mode?: string;
  /** The plan to build once the plan Run has ended. */
  readonly approvedPlan?: ApprovedPlan;
  /** Shown to the person as text. */
  readonly notice?: string;
}

/** What to do next for a pending interaction: answer Cursor, or run one more host tool. */
export type InteractionStep =
  | {
    readonly type: "respond";
    readonly response: InteractionResponse;
    readonly effects?: InteractionEffects;
  }
  | {
    readonly type: "call";
    readonly toolName: string;
    readonly input: JSONObject;
    /** Turns the tool's result into the next step, under the rules of the call it came in. */
    readonly next: (result: ToolResultText, context: InteractionContext) => InteractionStep;
  };

/** An interaction response's result. */
export type ResultInit = NonNullable<MessageInitShape<typeof InteractionResponseSchema>["result"]>;

/** What the bridge knows besides the query. */
export interface InteractionContext {
  readonly tools: HostTools;
  /** The workspace root (plans are saved below it). */
  readonly workspaceRoot: string;
  /** The host session's permission rules in this call (`undefined`: the host hands none). */
  readonly rules?: SessionRules | undefined;
  /** Where generated images wait for the host's save tool (see `../tools/image-save.ts`). */
  readonly images?: ImageStaging | undefined;
}

/**
 * A step that answers Cursor.
 *
 * @param id The query id.
 * @param result The response's result.
 * @param effects What the answer changes.
 * @returns The step.
 */
export function respond(
  id: number,
  result: ResultInit,
  effects?: InteractionEffects,
): InteractionStep {
  const response = create(InteractionResponseSchema, { id, result });
  return effects === undefined
    ? { type: "respond", response }
    : { type: "respond", response, effects };
}

/**
 * A step that asks the person through the host's question tool.
 *
 * @param toolName The question tool's name.
 * @param questions What to ask.
 * @param next Turns the answer into the next step.
 * @returns The step.
 */
export function ask(
  toolName: string,
  questions: readonly HostQuestion[],
  next: (result: ToolResultText, context: InteractionContext) => InteractionStep,
): InteractionStep {
  return { type: "call", toolName, input: questionInput(questions), next };
}

/**
 * Why a step is blocked by the session's rules, as told to Cursor.
 *
 * @param block What blocks it.
 * @param what What is blocked ("This plan", "Switching to agent mode").
 * @returns The reason.
 */
export function blockedReason(block: Exclude<RuleBlock, undefined>, what: string): string {
  return block === "unreadable"
    ? `${what} needs the session's permission rules, which could not be read; ` +
      "stay in the current mode and wait for the user's next message"
    : `${what} is held: this session denies file edits. ` +
      "Stay in plan mode and wait for the user's next message";
}
