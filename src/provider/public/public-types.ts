/**
 * The types every provider entry exports, whatever its AI SDK major or runtime: the
 * entries re-export this list (`export type * from`) and add only their major's names
 * (the provider interface and the AI SDK model types). One list, so the entries cannot
 * drift apart.
 *
 * @module
 */
export type * from "./public-snapshot-types.ts";
export type {
  CursorErrorCode,
  CursorErrorDetail,
  CursorErrorOptions,
} from "../../core/cursor-error.ts";
export type { CursorEnvironment, CursorProviderSettings } from "../settings/cursor-settings.ts";
export type { CursorParameter, CursorProviderOptions } from "../settings/cursor-options.ts";
export type { PermissionRule, SessionRules } from "../direct/interactions/session-rules.ts";
export type { CursorCallInput, ReasoningLevel } from "../model-call/call-args.ts";
export type { DebugLogger, DiagnosticRecord } from "../../core/logger.ts";
export type {
  AgentRunStream,
  AgentTransport,
  OpenRunOptions,
  RunCredentials,
} from "../../transport/agent-transport.ts";
export type { Frame } from "../../transport/frame-stream.ts";
export type { EndStream } from "../../protocol/end-stream.ts";
export type { WorkspaceFacts } from "../../agent-run/request-context.ts";
export type { ImageStaging, StagedImage } from "../direct/tools/media/image-save.ts";
export type { CliBackendSettings } from "../cli/cli-backend.ts";
export type { CursorAgentPermissions } from "../../cli/argv.ts";
export type { ToolExecution } from "../cli/stream-mapper.ts";
