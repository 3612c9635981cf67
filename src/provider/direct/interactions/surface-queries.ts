/**
 * Cursor's image generation and web search approval queries. Generation is approved only
 * when the host can save the image it produces (its `cursor_image_save` tool); otherwise
 * it is declined with the reason, before Cursor spends anything on it. A web search runs
 * through the host's own web search tool (the classic plugin's `custom_websearch`, or
 * OpenCode's `websearch` where offered), under the host's permission; Cursor's server
 * search is declined and the decline carries the host's results, so the model reads them
 * as the search's outcome (ADR 131). Without a host search tool the search is declined.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import {
  type InteractionQuery,
  InteractionResponseSchema,
} from "../../../gen/agent/v1/interaction_query_pb.ts";
import type { InteractionStep } from "./interaction-step.ts";
import { type HostTools, propertyName } from "../tools/host-tools.ts";
import { canSaveImages, IMAGE_SAVE_TOOL, type ImageStaging } from "../tools/media/image-save.ts";
import type { ToolResultText } from "../tools/tool-result-text.ts";

/** The host web search tools, in order of preference. */
const WEB_SEARCH_TOOLS = ["custom_websearch", "websearch"] as const;

/** What these queries need from the call. */
export interface SurfaceQueryContext {
  readonly tools: HostTools;
  readonly images?: ImageStaging | undefined;
}

/**
 * The first step for an image generation or web search query.
 *
 * @param query The server's query.
 * @param context The call's host tools and image staging.
 * @returns The step, or `undefined` for any other query.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { InteractionQuerySchema } from "../../../gen/agent/v1/interaction_query_pb.ts";
 * import { classifyHostTools } from "../tools/host-tools.ts";
 * import { bridgeSurfaceQuery } from "./surface-queries.ts";
 *
 * const query = create(InteractionQuerySchema, { id: 2, query: { case: "webSearchRequestQuery", value: { args: { searchTerm: "deno 3" } } } });
 * const tools = classifyHostTools([{ type: "function", name: "custom_websearch", inputSchema: { type: "object", properties: { query: {} } } }]);
 * const step = bridgeSurfaceQuery(query, { tools });
 * console.assert(step?.type === "call" && step.input.query === "deno 3");
 * ```
 */
export function bridgeSurfaceQuery(
  query: InteractionQuery,
  context: SurfaceQueryContext,
): InteractionStep | undefined {
  const q = query.query;
  switch (q.case) {
    case "generateImageRequestQuery": {
      const description = q.value.args?.description ?? "";
      return canSaveImages(context.tools, context.images)
        ? respondImage(query.id, { case: "approved", value: { description } })
        : respondImage(query.id, {
          case: "rejected",
          value: {
            reason:
              `This host cannot save generated images: its ${IMAGE_SAVE_TOOL} tool is not available in this session (load the classic OpenCode plugin entry)`,
          },
        });
    }
    case "webSearchRequestQuery":
      return webSearch(query.id, q.value.args?.searchTerm ?? "", context.tools);
    default:
      return undefined;
  }
}

function webSearch(id: number, searchTerm: string, tools: HostTools): InteractionStep {
  const tool = WEB_SEARCH_TOOLS.map((name) => tools.all.get(name)).find((t) => t !== undefined);
  if (tool === undefined) {
    return respondSearch(
      id,
      "This host offers no web search tool in this session; use the host's other tools",
    );
  }
  return {
    type: "call",
    toolName: tool.name,
    input: { [propertyName(tool, ["query"])]: searchTerm },
    next: (result: ToolResultText) =>
      respondSearch(
        id,
        result.isError
          ? `The host's ${tool.name} tool failed: ${result.text}`
          : `The search ran through the host's ${tool.name} tool instead; its results:\n${result.text}`,
      ),
  };
}

function respondSearch(id: number, reason: string): InteractionStep {
  return {
    type: "respond",
    response: create(InteractionResponseSchema, {
      id,
      result: {
        case: "webSearchRequestResponse",
        value: { result: { case: "rejected", value: { reason } } },
      },
    }),
  };
}

function respondImage(
  id: number,
  result:
    | { case: "approved"; value: { description: string } }
    | { case: "rejected"; value: { reason: string } },
): InteractionStep {
  return {
    type: "respond",
    response: create(InteractionResponseSchema, {
      id,
      result: { case: "generateImageRequestResponse", value: { result } },
    }),
  };
}
