/**
 * Cursor's modes and plans on the server side: the mode a user message sets (its
 * `UserMessage.mode`), and `execute_plan_action` — the build turn that implements a plan
 * the client accepted. The action must name a plan this conversation accepted (by the
 * `plan_file_uri` the client answered CreatePlan with); the turn then runs in agent mode
 * with the plan as its instruction, so directives in the plan's text run as the model's
 * implementation of it.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { AgentMode } from "../../../gen/agent/v1/common_pb.ts";
import type { ExecutePlanAction } from "../../../gen/agent/v1/conversation_action_pb.ts";
import { type UserMessage, UserMessageSchema } from "../../../gen/agent/v1/user_message_pb.ts";
import type { ConversationEntry } from "../conversation/conversations.ts";
import type { RunIo } from "../io/run-io.ts";
import { RunFailure } from "../wire/connect-http.ts";

const MODE_IDS: Readonly<Record<number, string>> = {
  [AgentMode.AGENT]: "agent",
  [AgentMode.ASK]: "ask",
  [AgentMode.PLAN]: "plan",
  [AgentMode.DEBUG]: "debug",
  [AgentMode.TRIAGE]: "triage",
  [AgentMode.PROJECT]: "project",
  [AgentMode.MULTITASK]: "multitask",
  [AgentMode.CUSTOM]: "custom",
};

/**
 * The unified mode id of a user message's mode (`agent` when unset).
 *
 * @param mode The `UserMessage.mode`.
 * @returns `agent`, `plan`, `ask`, …
 */
export function modeId(mode: AgentMode): string {
  return MODE_IDS[mode] ?? "agent";
}

/**
 * The user message of an `execute_plan_action` turn: the accepted plan as the instruction,
 * in agent mode.
 *
 * @param io The Run (a plan this conversation never accepted is a violation).
 * @param conversation The conversation's remembered state.
 * @param action The action.
 * @returns The message the build turn answers.
 * @throws {RunFailure} when strict mode ends the Run for an unknown plan.
 */
export function executePlanMessage(
  io: RunIo,
  conversation: ConversationEntry,
  action: ExecutePlanAction,
): UserMessage {
  const uri = action.planFileUri ?? "";
  const accepted = conversation.acceptedPlans.get(uri);
  if (accepted === undefined) {
    const known = [...conversation.acceptedPlans.keys()].map((k) => JSON.stringify(k));
    const message = `No accepted plan at ${JSON.stringify(uri)} (accepted: ${
      known.join(", ") || "none"
    })`;
    if (io.violation("execute-plan-unknown", message)) {
      throw new RunFailure({ code: "failed_precondition", message });
    }
  }
  const text = action.planFileContent ?? accepted?.plan ?? "";
  conversation.mode = "agent";
  return create(UserMessageSchema, {
    text: `Implement the plan ${accepted?.name ?? uri} (${uri}).\n${text}`,
    mode: AgentMode.AGENT,
  });
}
