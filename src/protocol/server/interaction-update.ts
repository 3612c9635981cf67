/**
 * Classifies the `InteractionUpdate` case of a server message (text, thinking,
 * tool calls, steps, summaries, turn end and notices) into its
 * {@link ServerMessageView}. One helper per group of related update cases.
 *
 * @module
 */

import type {
  InteractionUpdate,
  ShellOutputDeltaUpdate,
  ToolCallDeltaUpdate,
  TurnEndedUpdate,
} from "../../gen/agent/v1/interaction_update_pb.ts";
import type { ToolCall } from "../../gen/agent/v1/tool_call_pb.ts";
import type { ServerMessageView, ToolCallVariant, TurnCounters } from "./server-message-view.ts";
import { unknownCase } from "./unknown-case.ts";

/** The `InteractionUpdate.message` oneof with its case set. */
type InteractionEvent = Exclude<InteractionUpdate["message"], { case: undefined }>;

/** The events of the given cases. */
type EventOf<Case extends InteractionEvent["case"]> = Extract<InteractionEvent, { case: Case }>;

/**
 * Classifies the `InteractionUpdate` case of a server message.
 *
 * @param update The decoded interaction update.
 * @returns Its flat view; `unknown` when no known case is set.
 */
export function classifyInteractionUpdate(update: InteractionUpdate): ServerMessageView {
  const event = update.message;
  switch (event.case) {
    case "textDelta":
    case "thinkingDelta":
    case "thinkingCompleted":
    case "tokenDelta":
      return classifyTextEvent(event);
    case "partialToolCall":
    case "toolCallStarted":
    case "toolCallDelta":
    case "toolCallCompleted":
      return classifyToolCallEvent(event);
    case "stepStarted":
    case "stepCompleted":
    case "userMessageAppended":
    case "shellOutputDelta":
    case "heartbeat":
    case "turnEnded":
      return classifyTurnEvent(event);
    case "summaryStarted":
    case "summary":
    case "summaryCompleted":
      return classifySummaryEvent(event);
    case "promptSuggestion":
    case "postRequestPrompt":
    case "activeBranchChange":
    case "feedbackRequest":
    case "responseComparison":
    case "contextInjectionState":
    case "routedModel":
      return classifyNoticeEvent(event);
    case undefined:
      return unknownCase("InteractionUpdate.message", update, undefined);
  }
}

function classifyTextEvent(
  event: EventOf<"textDelta" | "thinkingDelta" | "thinkingCompleted" | "tokenDelta">,
): ServerMessageView {
  switch (event.case) {
    case "textDelta":
      return {
        kind: "text-delta",
        text: event.value.text,
        isServerNotice: event.value.isServerNotice,
      };
    case "thinkingDelta":
      return {
        kind: "thinking-delta",
        text: event.value.text,
        thinkingStyle: event.value.thinkingStyle,
      };
    case "thinkingCompleted":
      return { kind: "thinking-completed", thinkingDurationMs: event.value.thinkingDurationMs };
    case "tokenDelta":
      return { kind: "token-delta", tokens: event.value.tokens };
  }
}

function classifyToolCallEvent(
  event: EventOf<"partialToolCall" | "toolCallStarted" | "toolCallDelta" | "toolCallCompleted">,
): ServerMessageView {
  switch (event.case) {
    case "partialToolCall":
      return {
        kind: "tool-call-partial",
        callId: event.value.callId,
        modelCallId: event.value.modelCallId,
        argsTextDelta: event.value.argsTextDelta,
        toolCall: event.value.toolCall,
        tool: toolVariantOf(event.value.toolCall),
      };
    case "toolCallStarted":
      return {
        kind: "tool-call-started",
        callId: event.value.callId,
        modelCallId: event.value.modelCallId,
        toolCall: event.value.toolCall,
        tool: toolVariantOf(event.value.toolCall),
      };
    case "toolCallDelta":
      return classifyToolCallDelta(event.value);
    case "toolCallCompleted":
      return {
        kind: "tool-call-completed",
        callId: event.value.callId,
        modelCallId: event.value.modelCallId,
        toolCall: event.value.toolCall,
        tool: toolVariantOf(event.value.toolCall),
      };
  }
}

function classifyTurnEvent(
  event: EventOf<
    | "stepStarted"
    | "stepCompleted"
    | "userMessageAppended"
    | "shellOutputDelta"
    | "heartbeat"
    | "turnEnded"
  >,
): ServerMessageView {
  switch (event.case) {
    case "stepStarted":
      return { kind: "step-started", stepId: Number(event.value.stepId) };
    case "stepCompleted":
      return {
        kind: "step-completed",
        stepId: Number(event.value.stepId),
        stepDurationMs: Number(event.value.stepDurationMs),
      };
    case "userMessageAppended":
      return { kind: "user-message-appended", userMessage: event.value.userMessage };
    case "shellOutputDelta":
      return classifyShellOutputDelta(event.value);
    case "heartbeat":
      return { kind: "heartbeat" };
    case "turnEnded":
      return { kind: "turn-ended", counters: countersOf(event.value) };
  }
}

function classifySummaryEvent(
  event: EventOf<"summaryStarted" | "summary" | "summaryCompleted">,
): ServerMessageView {
  switch (event.case) {
    case "summaryStarted":
      return { kind: "summary-started" };
    case "summary":
      return { kind: "summary", summary: event.value.summary };
    case "summaryCompleted":
      return { kind: "summary-completed", hookMessage: event.value.hookMessage };
  }
}

function classifyNoticeEvent(
  event: EventOf<
    | "promptSuggestion"
    | "postRequestPrompt"
    | "activeBranchChange"
    | "feedbackRequest"
    | "responseComparison"
    | "contextInjectionState"
    | "routedModel"
  >,
): ServerMessageView {
  switch (event.case) {
    case "promptSuggestion":
      return { kind: "prompt-suggestion", suggestion: event.value.suggestion };
    case "postRequestPrompt":
      return {
        kind: "post-request-prompt",
        title: event.value.title,
        message: event.value.message,
        buttonLabel: event.value.buttonLabel,
        buttonUrl: event.value.buttonUrl,
      };
    case "activeBranchChange":
      return {
        kind: "active-branch-change",
        path: event.value.path,
        branchName: event.value.branchName,
      };
    case "feedbackRequest":
      return { kind: "feedback-request" };
    case "responseComparison":
      return { kind: "response-comparison" };
    case "contextInjectionState":
      return {
        kind: "context-injection-state",
        injectionId: event.value.injectionId,
        state: event.value.state?.state.case,
      };
    case "routedModel":
      return { kind: "routed-model", displayName: event.value.displayName };
  }
}

function classifyToolCallDelta(update: ToolCallDeltaUpdate): ServerMessageView {
  const delta = update.toolCallDelta?.delta;
  if (delta === undefined || delta.case === undefined) {
    return unknownCase("ToolCallDelta.delta", update.toolCallDelta ?? update, undefined);
  }
  return {
    kind: "tool-call-delta",
    callId: update.callId,
    modelCallId: update.modelCallId,
    delta,
  };
}

function classifyShellOutputDelta(update: ShellOutputDeltaUpdate): ServerMessageView {
  const event = update.event;
  if (event.case === undefined) {
    return unknownCase("ShellOutputDeltaUpdate.event", update, undefined);
  }
  return { kind: "shell-output-delta", event };
}

function toolVariantOf(toolCall: ToolCall | undefined): ToolCallVariant | undefined {
  const tool = toolCall?.tool;
  if (tool === undefined || tool.case === undefined) return undefined;
  return tool;
}

function countersOf(update: TurnEndedUpdate): TurnCounters {
  return {
    inputTokens: optionalNumber(update.inputTokens),
    outputTokens: optionalNumber(update.outputTokens),
    cacheReadTokens: optionalNumber(update.cacheReadTokens),
    cacheWriteTokens: optionalNumber(update.cacheWriteTokens),
    reasoningTokens: optionalNumber(update.reasoningTokens),
  };
}

function optionalNumber(value: bigint | undefined): number | undefined {
  return value === undefined ? undefined : Number(value);
}
