/**
 * Strict-mode rules: what a client must not do, as data. Each rule has a stable name
 * (tests assert on it), a description, and whether breaking it ends the Run (with the
 * Connect code the service would use) or is only recorded.
 *
 * @module
 */

/**
 * Every strict-mode rule name.
 *
 * @example
 * ```ts
 * import { RULE_NAMES, RULES } from "../../mod.ts";
 *
 * for (const name of RULE_NAMES) console.assert(RULES[name].description.length > 0);
 * ```
 */
export const RULE_NAMES = [
  "first-message-not-run-request",
  "conversation-state-missing",
  "second-run-request",
  "undecodable-client-message",
  "unknown-client-message",
  "reply-deadline-exceeded",
  "duplicate-reply",
  "unknown-reply-id",
  "reply-case-mismatch",
  "interaction-answer-invalid",
  "execute-plan-unknown",
  "stream-close-before-result",
  "stream-close-missing",
  "append-seqno-gap",
  "append-seqno-duplicate",
  "append-hex-invalid",
  "checkpoint-not-issued",
  "agent-skill-invalid",
  "tool-image-invalid",
  "blob-hash-mismatch",
  "heartbeat-missing",
  "pkce-mismatch",
  "cancel-action-malformed",
] as const;

/**
 * A strict-mode rule name.
 *
 * @example
 * ```ts
 * import type { RuleName } from "../../mod.ts";
 *
 * const rule: RuleName = "stream-close-missing";
 * console.assert(rule.length > 0);
 * ```
 */
export type RuleName = typeof RULE_NAMES[number];

/**
 * How a rule is enforced.
 *
 * @example
 * ```ts
 * import { type RuleInfo, RULES } from "../../mod.ts";
 *
 * const info: RuleInfo = RULES["append-seqno-gap"];
 * console.assert(info.endsRunWith === "invalid_argument");
 * ```
 */
export interface RuleInfo {
  /** The rule name. */
  readonly name: RuleName;
  /** What the rule forbids. */
  readonly description: string;
  /** Connect code the Run ends with when the rule is broken, or `undefined` when only recorded. */
  readonly endsRunWith: string | undefined;
}

const rule = (name: RuleName, description: string, endsRunWith?: string): RuleInfo => ({
  name,
  description,
  endsRunWith,
});

/**
 * The rule table, documented in docs/emulator.md.
 *
 * @example
 * ```ts
 * import { RULES } from "../../mod.ts";
 *
 * console.assert(RULES["first-message-not-run-request"].endsRunWith === "invalid_argument");
 * console.assert(RULES["heartbeat-missing"].endsRunWith === undefined);
 * ```
 */
export const RULES: Readonly<Record<RuleName, RuleInfo>> = {
  "first-message-not-run-request": rule(
    "first-message-not-run-request",
    "The first client message of a Run is not run_request",
    "invalid_argument",
  ),
  "conversation-state-missing": rule(
    "conversation-state-missing",
    "run_request has no conversation_state (send an empty message for a new conversation)",
    "invalid_argument",
  ),
  "second-run-request": rule(
    "second-run-request",
    "A run_request arrived on a Run that already has one",
    "invalid_argument",
  ),
  "undecodable-client-message": rule(
    "undecodable-client-message",
    "A client frame or append does not decode as AgentClientMessage",
    "invalid_argument",
  ),
  "unknown-client-message": rule(
    "unknown-client-message",
    "An AgentClientMessage has no known case set (unknown field number)",
    "invalid_argument",
  ),
  "reply-deadline-exceeded": rule(
    "reply-deadline-exceeded",
    "An exec, KV or interaction request stayed unanswered past the reply deadline",
    "deadline_exceeded",
  ),
  "duplicate-reply": rule(
    "duplicate-reply",
    "A request was answered twice (a second terminal result or KV/interaction reply)",
    "invalid_argument",
  ),
  "unknown-reply-id": rule(
    "unknown-reply-id",
    "A reply names an id the server never issued on that channel",
    "invalid_argument",
  ),
  "reply-case-mismatch": rule(
    "reply-case-mismatch",
    "A reply's result case does not match the request case (e.g. read_result for shell)",
    "invalid_argument",
  ),
  "interaction-answer-invalid": rule(
    "interaction-answer-invalid",
    "An interaction answer of the right case is malformed (no result, an unasked question or option, several options to a single choice)",
    "invalid_argument",
  ),
  "execute-plan-unknown": rule(
    "execute-plan-unknown",
    "An execute_plan_action names no plan this conversation accepted (its plan_file_uri)",
    "failed_precondition",
  ),
  "stream-close-before-result": rule(
    "stream-close-before-result",
    "exec stream_close arrived before the exec's terminal result",
    "invalid_argument",
  ),
  "stream-close-missing": rule(
    "stream-close-missing",
    "A tool exec got its terminal result but no stream_close before the reply deadline (a throw is final and needs none)",
    "deadline_exceeded",
  ),
  "append-seqno-gap": rule(
    "append-seqno-gap",
    "A BidiAppend sequence number was skipped and never filled within the gap timeout",
    "invalid_argument",
  ),
  "append-seqno-duplicate": rule(
    "append-seqno-duplicate",
    "A BidiAppend sequence number was used twice",
    "invalid_argument",
  ),
  "append-hex-invalid": rule(
    "append-hex-invalid",
    "BidiAppend data is not lowercase hex or not valid hex",
    "invalid_argument",
  ),
  "checkpoint-not-issued": rule(
    "checkpoint-not-issued",
    "conversation_state is not a checkpoint this emulator issued (altered or foreign)",
  ),
  "agent-skill-invalid": rule(
    "agent-skill-invalid",
    "An agent_skills entry has no absolute full_path or no description, or agent_skills came without agent_skills_info_complete",
  ),
  "tool-image-invalid": rule(
    "tool-image-invalid",
    "An MCP image content item is not an image of its mime_type, or is over 20 MiB",
  ),
  "blob-hash-mismatch": rule(
    "blob-hash-mismatch",
    "A get_blob_result's data does not hash to the requested blob id",
    "internal",
  ),
  "heartbeat-missing": rule(
    "heartbeat-missing",
    "No client frame arrived for longer than the client heartbeat timeout",
  ),
  "pkce-mismatch": rule(
    "pkce-mismatch",
    "The login poll's verifier does not hash to the challenge given on the login URL",
  ),
  "cancel-action-malformed": rule(
    "cancel-action-malformed",
    "A cancel_action carries fields CancelAction does not have (only #1 reason and #3 interrupted_pending_tool_call_resolutions are known), or comes after turn_ended",
  ),
};

/**
 * One recorded violation.
 *
 * @example
 * ```ts
 * import { createEmulator, type Violation } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const violations: Violation[] = emulator.violations();
 *   console.assert(violations.length === 0);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface Violation {
  /** The rule that was broken. */
  readonly rule: RuleName;
  /** What happened, for a person. */
  readonly message: string;
  /** The Run it happened on, when it belongs to one. */
  readonly runId: string | undefined;
  /** The request id of the Run (or append) it concerns. */
  readonly requestId: string | undefined;
  /** Emulator clock time. */
  readonly time: number;
  /** Whether the Run was ended because of it. */
  readonly endedRun: boolean;
}

/** Which rules are enforced. */
export interface StrictSettings {
  readonly enabled: boolean;
  readonly disabled: ReadonlySet<RuleName>;
}

/**
 * Resolves the `strict` option: `true`/absent enables every rule, `false` none, and
 * `{ disable: [...] }` all but the named ones.
 *
 * @param option The option as given.
 * @returns The settings.
 */
export function resolveStrict(
  option: boolean | { readonly disable?: readonly RuleName[] } | undefined,
): StrictSettings {
  if (option === false) return { enabled: false, disabled: new Set() };
  if (option === true || option === undefined) return { enabled: true, disabled: new Set() };
  return { enabled: true, disabled: new Set(option.disable ?? []) };
}

/** Whether a rule is enforced under the settings. */
export function ruleEnforced(settings: StrictSettings, name: RuleName): boolean {
  return settings.enabled && !settings.disabled.has(name);
}
