/**
 * Builds the `AgentRunRequest` of a turn: the user message (text, images), the request
 * context, the requested model, and the conversation identity.
 *
 * @module
 */
import { create } from "@bufbuild/protobuf";
import { type AgentRunRequest, AgentRunRequestSchema } from "../gen/agent/v1/run_request_pb.ts";
import type { RequestContext } from "../gen/agent/v1/request_context_pb.ts";
import { AgentMode } from "../gen/agent/v1/common_pb.ts";

/** An image for the user message. */
export interface RunImage {
  readonly data: Uint8Array;
  readonly mimeType: string;
  readonly uuid: string;
}

/** What a turn's run request is built from. */
export interface RunRequestInputs {
  readonly conversationId: string;
  readonly conversationGroupId: string;
  readonly messageId: string;
  readonly userText: string;
  readonly images: readonly RunImage[];
  readonly requestContext: RequestContext;
  readonly model: {
    readonly modelId: string;
    readonly maxMode: boolean;
    readonly parameters: readonly { readonly id: string; readonly value: string }[];
  };
  /** Cursor's mode for the message (default agent; plan after a declined plan). */
  readonly mode?: AgentMode;
}

/**
 * Builds the run request for a new user turn (the checkpoint is spliced in at encoding).
 *
 * @param inputs Conversation identity, the user message, context and model.
 * @returns The request, without `conversation_state`.
 *
 * @example
 * ```ts
 * import { buildUserTurnRequest } from "./run-request.ts";
 * import { buildRequestContext } from "./request-context.ts";
 *
 * const request = buildUserTurnRequest({
 *   conversationId: "c", conversationGroupId: "c", messageId: "m", userText: "Hi", images: [],
 *   requestContext: buildRequestContext({ workspace: { workspaceRoot: "/", osVersion: "x", shell: "sh", timeZone: "UTC" }, systemPrompt: "" }),
 *   model: { modelId: "composer-2", maxMode: false, parameters: [] },
 * });
 * console.assert(request.action?.action.case === "userMessageAction");
 * ```
 */
export function buildUserTurnRequest(inputs: RunRequestInputs): AgentRunRequest {
  return create(AgentRunRequestSchema, {
    action: {
      action: {
        case: "userMessageAction",
        value: {
          userMessage: {
            text: inputs.userText,
            messageId: inputs.messageId,
            mode: inputs.mode ?? AgentMode.AGENT,
            ...(inputs.images.length === 0 ? {} : {
              selectedContext: {
                selectedImages: inputs.images.map((image) => ({
                  uuid: image.uuid,
                  mimeType: image.mimeType,
                  dataOrBlobId: { case: "data" as const, value: image.data },
                })),
              },
            }),
          },
          requestContext: inputs.requestContext,
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
    runId: inputs.messageId,
  });
}

/** What a resumed Run's request is built from. */
export interface ResumeRequestInputs {
  readonly conversationId: string;
  readonly conversationGroupId: string;
  readonly runId: string;
  readonly requestContext: RequestContext;
  readonly model: RunRequestInputs["model"];
}

/**
 * The wire mode of Cursor's unified mode id: agent unless the conversation plans, asks
 * or debugs.
 *
 * @param mode The conversation's Cursor mode (`plan`, `ask`, …; unset: agent).
 * @returns The `AgentMode` a user-turn request carries.
 *
 * @example
 * ```ts
 * import { AgentMode } from "../gen/agent/v1/common_pb.ts";
 * import { agentModeOf } from "./run-request.ts";
 *
 * console.assert(agentModeOf("spec") === AgentMode.PLAN && agentModeOf(undefined) === AgentMode.AGENT);
 * ```
 */
export function agentModeOf(mode: string | undefined): AgentMode {
  switch (mode) {
    case "plan":
    case "spec":
      return AgentMode.PLAN;
    case "ask":
    case "chat":
      return AgentMode.ASK;
    case "debug":
      return AgentMode.DEBUG;
    default:
      return AgentMode.AGENT;
  }
}

/**
 * Builds the run request that resumes an interrupted turn from its latest eligible
 * checkpoint (spliced in at encoding): `resume_action` with the request context, the
 * same conversation.
 *
 * @param inputs Conversation identity, context and model.
 * @returns The request, without `conversation_state`.
 *
 * @example
 * ```ts
 * import { buildResumeRequest } from "./run-request.ts";
 * import { buildRequestContext } from "./request-context.ts";
 *
 * const request = buildResumeRequest({
 *   conversationId: "c", conversationGroupId: "c", runId: "r",
 *   requestContext: buildRequestContext({ workspace: { workspaceRoot: "/", osVersion: "x", shell: "sh", timeZone: "UTC" }, systemPrompt: "" }),
 *   model: { modelId: "composer-2", maxMode: false, parameters: [] },
 * });
 * console.assert(request.action?.action.case === "resumeAction");
 * ```
 */
export function buildResumeRequest(inputs: ResumeRequestInputs): AgentRunRequest {
  return create(AgentRunRequestSchema, {
    action: {
      action: { case: "resumeAction", value: { requestContext: inputs.requestContext } },
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
