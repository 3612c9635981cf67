/**
 * The seam between the shared language model and a backend. A backend only produces
 * stream parts for one call; everything else (call arguments and warnings,
 * `stream-start`, `doGenerate`, the error boundary, aborts) is the shared
 * {@link CursorLanguageModel}'s.
 *
 * @module
 */
import type { LanguageModelV3StreamPart, SharedV3Warning } from "@ai-sdk/provider";
import type { BackendCapabilities, CallArgs } from "./model-call/call-args.ts";
import type { ApiCallContext } from "./api-call-error.ts";

/** The backends: Cursor's agent protocol spoken directly, or the `cursor-agent` CLI. */
export type BackendName = "direct" | "cli";

/** One call's stream as a backend produced it. */
export interface BackendTurn {
  /**
   * Everything after `stream-start`: `response-metadata`, content parts, and a closing
   * `finish`. A failure is an `error` part carrying whatever failed (the shared model
   * converts it), or the stream's own error.
   */
  readonly stream: ReadableStream<LanguageModelV3StreamPart>;
  /** Warnings found while preparing the turn, after the call's own. */
  readonly warnings?: readonly SharedV3Warning[];
  /** A summary of what was sent (model, conversation, argv), never secrets. */
  readonly requestBody?: Record<string, unknown>;
}

/** A backend: turns one call into stream parts. */
export interface TurnBackend {
  /** Which backend this is. */
  readonly name: BackendName;
  /** The provider id models of this backend report, e.g. `cursor.direct`. */
  readonly providerId: string;
  /** What the backend can take from a call. */
  readonly capabilities: BackendCapabilities;
  /**
   * Where errors of this model say the call went.
   *
   * @param modelId The host-facing model id.
   */
  errorContext(modelId: string): ApiCallContext;
  /**
   * Called once with every error the call surfaces, after conversion: removes
   * credential values this backend has sent, and may log the failure. Returns the
   * error to surface.
   *
   * @param error The converted error.
   */
  reportFailure?(error: Error): Error;
  /**
   * Starts one call. Rejects only when nothing could be started; later failures end
   * the stream with an `error` part.
   *
   * @param call The call's arguments.
   */
  stream(call: CallArgs): Promise<BackendTurn>;
}
