/**
 * Cursor's CreatePlan as the person meets it: the plan is saved through the host's write
 * (else patch) tool at `.opencode/plans/<name>.md`, shown, and the person is asked whether
 * to implement it. Approval answers `success` with the plan's path and hands the plan to
 * the build turn (which starts once this plan Run has ended); declining or dismissing ends
 * the turn in plan mode; typed feedback goes back as the CreatePlan reply so the model can
 * revise. The session's permission rules are read at every step (they may change while a
 * step waits): rules that could not be read block the plan, and a session-wide edit deny
 * keeps a saved plan without asking to implement it and ends the turn.
 *
 * @module
 */
import type { JSONObject } from "@ai-sdk/provider";
import type { CreatePlanArgs } from "../../../gen/agent/v1/interaction_query_pb.ts";
import { propertyName } from "../tools/host-tools.ts";
import type { ToolResultText } from "../tools/tool-result-text.ts";
import { type HostQuestion, readAnswers } from "./question-tool.ts";
import { planPath } from "./plan-file.ts";
import { ruleBlock } from "./session-rules.ts";
import {
  ask,
  blockedReason,
  type InteractionContext,
  type InteractionEffects,
  type InteractionStep,
  respond,
} from "./interaction-step.ts";

/** Option label that approves the plan. */
const IMPLEMENT = "Implement the plan";
/** Option label that keeps planning. */
const KEEP_PLANNING = "Keep planning";
/** Told to Cursor when the person declines or dismisses the plan review. */
const PLAN_DECLINED =
  "The user did not approve the plan. Stay in plan mode and wait for the user's next message";
/** Why later work of a Run is refused once the person declined its plan. */
const DECLINED_WORK = "The user did not approve the plan; wait for the user's next message";
/** Why later work of a plan Run is refused once its plan is approved. */
const APPROVED_WORK = "The plan was approved; it is implemented in the next turn";

/** Why later work of a Run is refused once its plan is held by the session's rules. */
const HELD_WORK =
  "The plan is held by the session's permission rules; wait for the user's next message";

/** Ends the turn in plan mode. */
const KEEP_PLAN: InteractionEffects = { stopWork: DECLINED_WORK, mode: "plan" };
/** Ends the turn in plan mode, the plan held by the rules. */
const HOLD_PLAN: InteractionEffects = { stopWork: HELD_WORK, mode: "plan" };

/**
 * The first step of a CreatePlan: blocked at once, or saving the plan.
 *
 * @param id The query id.
 * @param toolName The host's question tool.
 * @param args Cursor's plan.
 * @param context The call's host tools, workspace and rules.
 * @returns The step.
 */
export function createPlan(
  id: number,
  toolName: string,
  args: CreatePlanArgs | undefined,
  context: InteractionContext,
): InteractionStep {
  const plan = args?.plan ?? "";
  const name = args?.name || "plan";
  const fail = (error: string, planUri: string, effects: InteractionEffects) =>
    respond(id, {
      case: "createPlanRequestResponse",
      value: { result: { result: { case: "error", value: { error } }, planUri } },
    }, effects);
  if (ruleBlock(context.rules) === "unreadable") {
    const reason = blockedReason("unreadable", "This plan");
    return fail(reason, "", {
      mode: "plan",
      notice: `Cursor's plan "${name}" was not saved: ${UNREADABLE_NOTICE}`,
    });
  }
  const path = planPath(context.workspaceRoot, name);
  const afterSave = (saved: ToolResultText | undefined, now: InteractionContext) => {
    const planUri = saved === undefined || saved.isError ? "" : path;
    const block = ruleBlock(now.rules);
    if (block === "unreadable") {
      return fail(blockedReason(block, "This plan"), planUri, {
        ...HOLD_PLAN,
        notice: `Cursor's plan "${name}" is held: ${UNREADABLE_NOTICE}`,
      });
    }
    if (block === "edit-denied") {
      const where = planUri === ""
        ? `could not be saved (${saveError(saved)})`
        : `is saved at ${path}`;
      return fail(`The plan ${where}. ${blockedReason(block, "Implementing it")}`, planUri, {
        ...HOLD_PLAN,
        notice: `Cursor's plan "${name}" ${where}. This session denies file edits, so it is ` +
          "not offered for implementation: change the session's edit rule first.",
      });
    }
    return review(id, toolName, { plan, name, planUri, note: savedNote(path, saved) });
  };
  const save = saveCall(context, path, plan);
  if (save === undefined) return afterSave(undefined, context);
  return { ...save, next: afterSave };
}

const UNREADABLE_NOTICE =
  "the session's permission rules could not be read, so plans and switches into a mode " +
  "that implements are blocked. Ordinary requests still work.";

function saveError(saved: ToolResultText | undefined): string {
  return saved === undefined ? "no host tool can write files" : saved.text;
}

/** The host call that saves the plan, or `undefined` when no tool can. */
function saveCall(
  context: InteractionContext,
  path: string,
  plan: string,
): { type: "call"; toolName: string; input: JSONObject } | undefined {
  const { write, patch } = context.tools.byRole;
  if (write !== undefined) {
    const input: JSONObject = {
      [propertyName(write, ["filePath", "path", "file_path"])]: path,
      [propertyName(write, ["content", "contents"])]: plan,
    };
    return { type: "call", toolName: write.name, input };
  }
  if (patch !== undefined) {
    const body = plan.split("\n").map((line) => `+${line}`).join("\n");
    const input: JSONObject = {
      [propertyName(patch, ["patchText", "patch", "input"])]:
        `*** Begin Patch\n*** Add File: ${path}\n${body}\n*** End Patch`,
    };
    return { type: "call", toolName: patch.name, input };
  }
  return undefined;
}

function savedNote(path: string, saved: ToolResultText | undefined): string {
  if (saved === undefined) return "(No host tool could save this plan.)\n\n";
  return saved.isError
    ? `(The plan could not be saved: ${saved.text})\n\n`
    : `(Saved to ${path}.)\n\n`;
}

/** The review question and what each answer does. */
function review(
  id: number,
  toolName: string,
  plan: { plan: string; name: string; planUri: string; note: string },
): InteractionStep {
  const question: HostQuestion = {
    question: `${plan.plan}\n\n${plan.note}Implement this plan?`,
    header: plan.name,
    options: [
      { label: IMPLEMENT, description: "Approve the plan and start building" },
      { label: KEEP_PLANNING, description: "Stay in plan mode" },
    ],
  };
  const { planUri } = plan;
  const fail = (error: string, effects: InteractionEffects) =>
    respond(id, {
      case: "createPlanRequestResponse",
      value: { result: { result: { case: "error", value: { error } }, planUri } },
    }, effects);
  return ask(toolName, [question], (result, now) => {
    if (result.isError) return fail(PLAN_DECLINED, KEEP_PLAN);
    const answer = readAnswers([question], result.text)[0];
    if (answer?.labels[0] === IMPLEMENT) {
      // A rule that changed while the question waited still holds the plan.
      const block = ruleBlock(now.rules);
      if (block !== undefined) {
        return fail(blockedReason(block, "Implementing this plan"), {
          ...HOLD_PLAN,
          notice: block === "unreadable"
            ? `Cursor's plan "${plan.name}" is held: ${UNREADABLE_NOTICE}`
            : `Cursor's plan "${plan.name}" is held: this session denies file edits. ` +
              "Change the session's edit rule before approving it.",
        });
      }
      return respond(id, {
        case: "createPlanRequestResponse",
        value: { result: { result: { case: "success", value: {} }, planUri } },
      }, {
        stopWork: APPROVED_WORK,
        mode: "agent",
        approvedPlan: { uri: planUri, content: plan.plan },
      });
    }
    if (answer?.freeform) {
      return fail(`The user asked for changes to the plan: ${answer.freeform}`, { mode: "plan" });
    }
    return fail(PLAN_DECLINED, KEEP_PLAN);
  });
}
