/**
 * Which interaction queries go to the host (questions, mode switches, plans: a person
 * decides them through the host's own question UI) and the explicit decline for the rest
 * (web tools are declined so the model uses the host's, environment set-up is
 * acknowledged). Every query gets exactly one answer with its id; an unknown query case
 * gets `undefined` (the caller reports it).
 *
 * @module
 */
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import {
  type InteractionQuery,
  type InteractionResponse,
  InteractionResponseSchema,
} from "../gen/agent/v1/interaction_query_pb.ts";

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
 * import { isHostAnswered } from "./interactions.ts";
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
 * import { declineInteraction } from "./interactions.ts";
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
