/**
 * The protocol variants a client used in one Run: where the sources disagree, the
 * emulator accepts every documented variant and records here which one came.
 *
 * @module
 */

/**
 * Protocol variants a client used (where sources disagree, every documented variant is
 * accepted and the one used is recorded here).
 *
 * @example
 * ```ts
 * import type { RunVariants } from "../../mod.ts";
 *
 * const variants: RunVariants = { requestContextStreamClose: false, appendEncoding: "hex", shellTerminal: "exit" };
 * console.assert(variants.appendEncoding === "hex");
 * ```
 */
export interface RunVariants {
  /** BidiAppend payload field: `hex` (data), `binary` (data_binary), `json` codec, or mixed. */
  appendEncoding?: "hex" | "binary" | "json" | "mixed";
  /** Shell terminal: `exit`, `exit+shell_result`, or `shell_result` alone. */
  shellTerminal?: string;
  /** The client sent stream_close after request_context_result. */
  requestContextStreamClose: boolean;
  /** `x-request-id` header equals the BidiRequestId (SSE). */
  requestIdHeaderMatches?: boolean;
  /** How the client reported a blob miss: empty `blob_data` or `error`. */
  blobMissShape?: "empty" | "error";
  /** Checkpoint roots were blob ids, inline content, or both. */
  rootEntries?: "blob-ids" | "inline" | "mixed";
  /** The supplied checkpoint was the `staged`, `settled` or `final` one (or not issued here). */
  checkpointKind?: string;
  /** The client pushed blobs in `pre_fetched_blobs`. */
  preFetchedBlobs?: boolean;
  /** The client sent gzip-compressed frames. */
  compressedFrames?: boolean;
  /** The client echoed `exec_id`. */
  execIdEchoed?: boolean;
  /** The client sent `local_execution_time_ms`. */
  localExecutionTimeMs?: boolean;
  /** `requested_model` (current) or `model_details` (legacy) chose the model. */
  modelSelection?: "requested_model" | "model_details" | "none";
  /** The requested parameter tuple matched an advertised variant. */
  parametersMatchVariant?: boolean;
  /** The action's request_context equals the request_context_result bytes. */
  requestContextMatchesAction?: boolean;
  /**
   * The request context carried `commit_attribution_message` or `pr_attribution_message`
   * (Cursor's client sets them when its attribution settings are on).
   */
  attributionMessages?: boolean;
  /** The request context's env carried `smart_mode_classifier_auto_mode_enabled`. */
  smartModeClassifier?: boolean;
  /** The `SandboxPolicy.type` a shell start reported (`TYPE_INSECURE_NONE`, …). */
  sandboxPolicyType?: string;
  /** Async ask-question answers arrived through a conversation action. */
  asyncAskQuestion?: boolean;
  /**
   * How the model went on with a turn whose tool work was already done: from the
   * checkpoint of a resumed Run (`checkpoint`), from the tool results of a rebuilt history
   * (`history`), or not at all (`unmatched`: a rebuilt history that does not match the
   * directives, answered with the echo).
   */
  continuation?: "checkpoint" | "history" | "unmatched";
}
