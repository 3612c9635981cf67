/**
 * Which interaction queries go to the host (questions, mode switches, plans: a person
 * decides them through the host's own question UI) and the explicit decline for the rest
 * (web tools are declined so the model uses the host's, environment set-up is
 * acknowledged). Every query gets exactly one answer with its id; an unknown query case
 * gets `undefined` (the caller reports it). An approved plan is built by a new Run whose
 * action is `execute_plan_action`.
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type InteractionQuery,
  type InteractionResponse,
  InteractionResponseSchema,
} from "../gen/agent/v1/interaction_query_pb.ts";
import { type AgentRunRequest, AgentRunRequestSchema } from "../gen/agent/v1/run_request_pb.ts";
import type { RequestContext } from "../gen/agent/v1/request_context_pb.ts";

type ResponseInit = MessageInitShape<typeof InteractionResponseSchema>["result"];

/** The query cases a person answers through the host (the provider decides how, or declines). */
const HOST_ANSWERED: ReadonlySet<string> = new Set([
  "askQuestionInteractionQuery",
  "switchModeRequestQuery",
  "createPlanRequestQuery",
  "generateImageRequestQuery",
  "webSearchRequestQuery",
]);

/**
 * Whether a query is handed to the host instead of being declined by the Run driver.
 *
 * @param query The server's query.
 * @returns `true` for questions, mode switches and plans.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { InteractionQuerySchema } from "../gen/agent/v1/interaction_query_pb.ts";
 * import { isHostAnswered } from "./query-routing.ts";
 *
 * const query = create(InteractionQuerySchema, { id: 1, query: { case: "askQuestionInteractionQuery", value: {} } });
 * console.assert(isHostAnswered(query));
 * ```
 */
export function isHostAnswered(query: InteractionQuery): boolean {
  return HOST_ANSWERED.has(query.query.case ?? "");
}

/**
 * Builds the declining answer to an interaction query.
 *
 * @param query The server's query.
 * @param reason Why it is declined, shown to the model.
 * @returns The response, or `undefined` for a query case this client does not know.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { InteractionQuerySchema } from "../gen/agent/v1/interaction_query_pb.ts";
 * import { declineInteraction } from "./query-routing.ts";
 *
 * const query = create(InteractionQuerySchema, { id: 1, query: { case: "webSearchRequestQuery", value: {} } });
 * console.assert(declineInteraction(query, "Use the host's web tools")?.result.case === "webSearchRequestResponse");
 * ```
 */
export function declineInteraction(
  query: InteractionQuery,
  reason: string,
): InteractionResponse | undefined {
  const result = declineFor(query, reason);
  return result === undefined
    ? undefined
    : create(InteractionResponseSchema, { id: query.id, result });
}

function declineFor(query: InteractionQuery, reason: string): ResponseInit | undefined {
  const rejected = { case: "rejected" as const, value: { reason } };
  switch (query.query.case) {
    case "webSearchRequestQuery":
      return { case: "webSearchRequestResponse", value: { result: rejected } };
    case "askQuestionInteractionQuery":
      return { case: "askQuestionInteractionResponse", value: { result: { result: rejected } } };
    case "switchModeRequestQuery":
      return { case: "switchModeRequestResponse", value: { result: rejected } };
    case "createPlanRequestQuery":
      return {
        case: "createPlanRequestResponse",
        value: { result: { result: { case: "error", value: { error: reason } } } },
      };
    case "setupVmEnvironmentArgs":
      return {
        case: "setupVmEnvironmentResult",
        value: { result: { case: "success", value: {} } },
      };
    case "webFetchRequestQuery":
      return { case: "webFetchRequestResponse", value: { result: rejected } };
    case "prManagementRequestQuery":
      return { case: "prManagementResult", value: { result: rejected } };
    case "mcpAuthRequestQuery":
      return { case: "mcpAuthRequestResponse", value: { result: rejected } };
    case "generateImageRequestQuery":
      return { case: "generateImageRequestResponse", value: { result: rejected } };
    case "replaceEnvArgs":
      return {
        case: "replaceEnvResult",
        value: { result: { case: "failure", value: { errorMessage: reason, setupLogs: "" } } },
      };
    case "connectScmRequestQuery":
      return { case: "connectScmRequestResponse", value: { result: rejected } };
    default:
      return undefined;
  }
}

/** What the build turn of an approved plan is built from. */
export interface ExecutePlanInputs {
  readonly conversationId: string;
  readonly conversationGroupId: string;
  readonly runId: string;
  readonly requestContext: RequestContext;
  readonly model: {
    readonly modelId: string;
    readonly maxMode: boolean;
    readonly parameters: readonly { readonly id: string; readonly value: string }[];
  };
  /** The `plan_uri` the CreatePlan was answered with. */
  readonly planFileUri: string;
  /** The plan's text. */
  readonly planFileContent: string;
}

/**
 * Builds the run request of an approved plan's build turn: `execute_plan_action` with the
 * plan's uri and text (the checkpoint is spliced in at encoding).
 *
 * @param inputs Conversation identity, request context, model and the plan.
 * @returns The request, without `conversation_state`.
 *
 * @example
 * ```ts
 * import { buildExecutePlanRequest } from "./query-routing.ts";
 * import { buildRequestContext } from "./request-context.ts";
 *
 * const request = buildExecutePlanRequest({
 *   conversationId: "c", conversationGroupId: "c", runId: "r",
 *   requestContext: buildRequestContext({ workspace: { workspaceRoot: "/", osVersion: "x", shell: "sh", timeZone: "UTC" }, systemPrompt: "" }),
 *   model: { modelId: "composer-2", maxMode: false, parameters: [] },
 *   planFileUri: "/ws/.opencode/plans/p.md", planFileContent: "1. Do it",
 * });
 * console.assert(request.action?.action.case === "executePlanAction");
 * ```
 */
export function buildExecutePlanRequest(inputs: ExecutePlanInputs): AgentRunRequest {
  return create(AgentRunRequestSchema, {
    action: {
      action: {
        case: "executePlanAction",
        value: {
          requestContext: inputs.requestContext,
          planFileUri: inputs.planFileUri,
          planFileContent: inputs.planFileContent,
        },
      },
    },
    conversationId: inputs.conversationId,
    conversationGroupId: inputs.conversationGroupId,
    requestedModel: {
      modelId: inputs.model.modelId,
      maxMode: inputs.model.maxMode,
      parameters: inputs.model.parameters.map((p) => ({ id: p.id, value: p.value })),
    },
    runId: inputs.runId,
  });
}
