/**
 * Faults on demand: what can go wrong (as data), and the controller that hands each
 * new Run the faults aimed at it — by conversation, by request id, or "the next N
 * Runs". Frame counts (`afterFrames`) count the Run's server messages excluding
 * heartbeats, so they are deterministic.
 *
 * @module
 */
import { detail, type ErrorDetail } from "../wire/connect-http.ts";

/**
 * Every fault the emulator can inject.
 *
 * @example
 * ```ts
 * import type { FaultSpec } from "../../mod.ts";
 *
 * const faults: FaultSpec[] = [
 *   { kind: "drop", afterFrames: 3 },
 *   { kind: "stall", ms: 2000, heartbeats: true },
 *   { kind: "error", code: "resource_exhausted", retryAfterMs: 1000 },
 *   { kind: "goaway", afterFrames: 5 },
 * ];
 * console.assert(faults.length === 4);
 * ```
 */
export type FaultSpec =
  /** Close the transport abruptly (no end-of-stream) after N frames. */
  | { readonly kind: "drop"; readonly afterFrames?: number }
  /** Send nothing (or heartbeats only) for `ms`, then carry on. */
  | {
    readonly kind: "stall";
    readonly ms: number;
    readonly heartbeats?: boolean;
    readonly afterFrames?: number;
  }
  /** End the Run with a Connect error (HTTP 200, error end-of-stream). */
  | {
    readonly kind: "error";
    readonly code: string;
    readonly message?: string;
    readonly detail?: ErrorDetail;
    readonly retryAfterMs?: number;
    readonly afterFrames?: number;
  }
  /** Answer the Run-opening request with this HTTP status (before any frame). */
  | { readonly kind: "http-status"; readonly status: number; readonly body?: string }
  /**
   * HTTP/2 only: GOAWAY on the session after N frames (SSE: behaves like drop). Abrupt by
   * default (an error code, the connection closed); `graceful`: NO_ERROR, as a server going
   * down for a deploy sends it, and the Run's stream is left open with nothing more on it.
   */
  | { readonly kind: "goaway"; readonly afterFrames?: number; readonly graceful?: boolean }
  /** HTTP/2 only: RST_STREAM on the Run after N frames (SSE: behaves like drop). */
  | { readonly kind: "rst-stream"; readonly afterFrames?: number }
  /** GET a blob the client never received; the Run then fails "Blob not found". */
  | { readonly kind: "blob-miss" }
  /** Send one frame whose payload is not a valid protobuf message, then carry on. */
  | { readonly kind: "malformed-frame"; readonly afterFrames?: number }
  /** Send an envelope header announcing a payload over 16 MiB, then drop. */
  | { readonly kind: "oversized-frame"; readonly afterFrames?: number }
  /** Send an AgentServerMessage whose only field has a number the schema lacks, then carry on. */
  | {
    readonly kind: "unknown-message";
    readonly fieldNumber?: number;
    readonly afterFrames?: number;
  }
  /** 200, then end the body at once with no frames (a wrong regional host). */
  | { readonly kind: "wrong-region" };

/** The kind names. */
type FaultKind = FaultSpec["kind"];

/**
 * Where a fault applies.
 *
 * @example
 * ```ts
 * import type { FaultTarget } from "../../mod.ts";
 *
 * const target: FaultTarget = { conversationId: "c-1", count: 2 };
 * console.assert(target.count === 2);
 * ```
 */
export interface FaultTarget {
  /** Only Runs of this conversation. */
  readonly conversationId?: string;
  /** Only the Run with this request id (`x-request-id` / BidiRequestId). */
  readonly requestId?: string;
  /** How many matching Runs it applies to (default 1). `Infinity` for all. */
  readonly count?: number;
}

/** Faults decided when the Run is opened (before its run_request is known). */
const OPEN_STAGE: ReadonlySet<FaultKind> = new Set(["http-status", "wrong-region"]);

/** Whether a fault acts when the Run is opened rather than once it started. */
export function isOpenStage(spec: FaultSpec): boolean {
  return OPEN_STAGE.has(spec.kind);
}

interface Armed {
  readonly spec: FaultSpec;
  readonly target: FaultTarget;
  remaining: number;
}

/**
 * Named errors for the common cases.
 *
 * @example
 * ```ts
 * import { ERROR_PRESETS } from "../../mod.ts";
 *
 * console.assert(ERROR_PRESETS["rate-limit"]?.code === "resource_exhausted");
 * console.assert(ERROR_PRESETS["bad-model"]?.detail?.error === "ERROR_BAD_MODEL_NAME");
 * ```
 */
export const ERROR_PRESETS: Readonly<Record<string, Extract<FaultSpec, { kind: "error" }>>> = {
  "rate-limit": {
    kind: "error",
    code: "resource_exhausted",
    message: "Rate limit exceeded",
    detail: detail("ERROR_RATE_LIMITED", "Too many requests", "Please slow down.", true),
    retryAfterMs: 2000,
  },
  "quota": {
    kind: "error",
    code: "resource_exhausted",
    message: "Usage limit reached",
    detail: {
      ...detail(
        "ERROR_RATE_LIMITED_CHANGEABLE",
        "You've hit your usage limit",
        "Resets on the 1st.",
        false,
      ),
      isExpected: true,
    },
  },
  "unavailable": {
    kind: "error",
    code: "unavailable",
    message: "Provider error",
    detail: detail("ERROR_CUSTOM", "Provider error", "The model provider failed; try again.", true),
    retryAfterMs: 1000,
  },
  "unauthenticated": {
    kind: "error",
    code: "unauthenticated",
    message: "Not logged in",
    detail: detail("ERROR_NOT_LOGGED_IN", "Authentication error", "Log in again.", false),
  },
  "bad-model": {
    kind: "error",
    code: "not_found",
    message: "Model not found",
    detail: detail("ERROR_BAD_MODEL_NAME", "AI Model Not Found", "", false),
  },
  "resource-exhausted": {
    kind: "error",
    code: "resource_exhausted",
    message: "Resource exhausted",
    detail: detail("ERROR_RESOURCE_EXHAUSTED", "Resource exhausted", "", true),
  },
  "context-too-long": {
    kind: "error",
    code: "invalid_argument",
    message: "Conversation too long",
    detail: detail(
      "ERROR_CONVERSATION_TOO_LONG",
      "Conversation too long",
      "Summarize the conversation or start a new one.",
      false,
    ),
  },
  "internal": { kind: "error", code: "internal", message: "Internal error" },
  "canceled": { kind: "error", code: "canceled", message: "Canceled" },
};

/**
 * Hands faults to Runs. Exposed to tests as `emulator.faults`.
 *
 * @example
 * ```ts
 * import { createEmulator } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   emulator.faults.next({ kind: "drop", afterFrames: 3 });
 *   emulator.faults.forConversation("c-1", "rate-limit");
 *   emulator.faults.forRequest("r-1", { kind: "http-status", status: 503 });
 *   console.assert(emulator.faults.pending().length === 3);
 *   emulator.faults.clear();
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export class FaultController {
  #armed: Armed[] = [];

  /**
   * Arms a fault.
   *
   * @param spec What goes wrong (or a preset name: `rate-limit`, `quota`, `unavailable`,
   *   `unauthenticated`, `bad-model`, `resource-exhausted`, `context-too-long`, `internal`,
   *   `canceled`).
   * @param target Which Runs; default the next one.
   * @throws {Error} for an unknown preset, or an open-stage fault aimed at a conversation
   *   (the conversation is unknown when the Run is opened).
   */
  inject(spec: FaultSpec | string, target: FaultTarget = {}): void {
    const resolved = typeof spec === "string" ? ERROR_PRESETS[spec] : spec;
    if (resolved === undefined) throw new Error(`Unknown fault preset ${JSON.stringify(spec)}`);
    if (isOpenStage(resolved) && target.conversationId !== undefined) {
      throw new Error(
        `Fault ${
          JSON.stringify(resolved.kind)
        } acts before the conversation is known: target a requestId or the next Runs`,
      );
    }
    this.#armed.push({ spec: resolved, target, remaining: target.count ?? 1 });
  }

  /** Arms a fault for the next `count` Runs (default 1). */
  next(spec: FaultSpec | string, count = 1): void {
    this.inject(spec, { count });
  }

  /** Arms a fault for Runs of one conversation (default: its next Run). */
  forConversation(conversationId: string, spec: FaultSpec | string, count = 1): void {
    this.inject(spec, { conversationId, count });
  }

  /** Arms a fault for the Run with this request id. */
  forRequest(requestId: string, spec: FaultSpec | string): void {
    this.inject(spec, { requestId });
  }

  /** Disarms everything. */
  clear(): void {
    this.#armed = [];
  }

  /** Faults still armed. */
  pending(): { spec: FaultSpec; target: FaultTarget; remaining: number }[] {
    return this.#armed.map((armed) => ({ ...armed }));
  }

  /**
   * Takes the faults for a Run at one stage, consuming their counts.
   *
   * @param stage `open` (request known) or `start` (run_request known).
   * @param requestId The Run's request id.
   * @param conversationId The conversation, at the `start` stage.
   * @returns The faults that apply.
   */
  take(stage: "open" | "start", requestId: string, conversationId?: string): FaultSpec[] {
    const taken: FaultSpec[] = [];
    for (const armed of this.#armed) {
      if (isOpenStage(armed.spec) !== (stage === "open")) continue;
      const { target } = armed;
      if (target.requestId !== undefined && target.requestId !== requestId) continue;
      if (target.conversationId !== undefined && target.conversationId !== conversationId) continue;
      taken.push(armed.spec);
      armed.remaining--;
    }
    this.#armed = this.#armed.filter((armed) => armed.remaining > 0);
    return taken;
  }
}
