/**
 * Classifies a failed `cursor-agent` run into a {@link CursorError} and says whether
 * it is specific to the resumed chat (the chat is gone: evict it) or anything else
 * (authentication, network, quota, out-of-memory, a signal: keep the cached chat).
 *
 * The CLI's wording is not documented and drifts between builds, so the patterns
 * are deliberately broad, case-insensitive and word-bounded ("presumed" is not
 * "resume"); the retry/connection events' "resuming" never reaches them.
 *
 * @module
 */
import { CursorError, type CursorErrorCode } from "../core/cursor-error.ts";

/** What is known about a failed run. */
export interface CliFailure {
  /** The tail of stderr. */
  readonly stderr: string;
  /** The error text of a `result` event with `is_error`, if any. */
  readonly resultError?: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The run was a `--resume`. */
  readonly resumed: boolean;
}

/** A classified failure. */
export interface ClassifiedFailure {
  readonly error: CursorError;
  /** The failure means the resumed chat cannot be used: evict it. */
  readonly resumeSpecific: boolean;
}

const NOUN = String.raw`(?:session|chat|conversation|thread)`;
const ID = String.raw`(?:\s+(?:id\s+)?(?:"[^"\n]*"|'[^'\n]*'|[A-Za-z0-9][A-Za-z0-9_-]{5,}))?`;
const RESUME_SPECIFIC: readonly RegExp[] = [
  new RegExp(
    String
      .raw`\b${NOUN}${ID}\s+(?:has\s+been\s+|has\s+|is\s+|was\s+)?(?:not\s+found|expired|deleted|missing|no\s+longer\s+exists)\b`,
    "i",
  ),
  new RegExp(String.raw`\b${NOUN}\s+(?:isn't|wasn't)\s+found\b`, "i"),
  new RegExp(
    String.raw`\b${NOUN}${ID}\s+(?:cannot|can\s+not|could\s+not)\s+(?:be\s+)?resumed\b`,
    "i",
  ),
  /\b(?:failed\s+to|could\s+not|unable\s+to|cannot|can\s+not)\s+resume\b/i,
  /\bresume\s+(?:failed|error|invalid|aborted)\b/i,
  new RegExp(String.raw`\bno\s+(?:active|such)\s+${NOUN}\b`, "i"),
  new RegExp(String.raw`\binvalid\s+${NOUN}(?:\s+id)?\b`, "i"),
  new RegExp(String.raw`\b${NOUN}\s+id\s+(?:is\s+)?(?:invalid|not\s+found|expired|missing)\b`, "i"),
];
const TRANSIENT_CAUSE =
  /\b(?:token|credentials?|auth\w*|re-?authenticate|password|secret|network|connection|internet|offline|quota|usage|api\s+key|fetch\s+failed|econn\w+|timeout|timed\s+out|request\s+id)\b/i;
const CHAT_CAUSE =
  /\b(?:inactiv\w*|idle|policy|retention|archived?|purged|deleted|removed|expired)\b/i;

/**
 * Whether a failure text says the resumed chat itself is unusable.
 *
 * @param text stderr or an error result's text.
 * @returns True for resume-specific failures; false for transient ones that merely mention a session.
 *
 * @example
 * ```ts
 * import { isResumeSpecificFailure } from "./cli-error.ts";
 *
 * console.assert(isResumeSpecificFailure("Error: Chat not found: 0ef42bbf"));
 * console.assert(isResumeSpecificFailure('Session "abc" not found'));
 * console.assert(!isResumeSpecificFailure("resume failed due to network error"));
 * console.assert(!isResumeSpecificFailure("session not found; please re-authenticate"));
 * ```
 */
export function isResumeSpecificFailure(text: string): boolean {
  const plain = stripAnsi(text);
  for (const pattern of RESUME_SPECIFIC) {
    const match = pattern.exec(plain);
    if (!match) continue;
    const rest = plain.slice(match.index + match[0].length).split(/[\n.!]/, 1)[0] ?? "";
    const clause = `${match[0]} ${rest}`;
    if (TRANSIENT_CAUSE.test(rest) && !CHAT_CAUSE.test(clause)) continue;
    return true;
  }
  return false;
}

const CLASSES: readonly {
  readonly code: CursorErrorCode;
  readonly pattern: RegExp;
  readonly retryable?: boolean;
}[] = [
  {
    code: "usage_limit",
    pattern: /\b(?:usage\s+limit|spend\s+limit|hit\s+your\s+(?:\w+\s+)?limit|quota)\b/i,
  },
  {
    code: "unauthenticated",
    pattern:
      /\b(?:authentication\s+required|not\s+logged\s+in|not\s+authenticated|unauthori[sz]ed|unauthenticated|login\s+required|please\s+log\s*in|agent\s+login|re-?authenticate|invalid\s+api\s+key)\b/i,
  },
  {
    code: "bad_model",
    pattern:
      /\b(?:cannot\s+use\s+this\s+model|model\s+not\s+found|invalid\s+model|unknown\s+model)\b/i,
  },
  {
    code: "network",
    pattern:
      /\b(?:fetch\s+failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN|network\s+(?:error|failure|is\s+unreachable)|socket\s+hang\s+up|ConnectError|connection\s+(?:refused|reset|lost|closed))\b/i,
  },
  { code: "timeout", pattern: /\b(?:ETIMEDOUT|timed\s+out|deadline\s+exceeded)\b/i },
  {
    // The CLI's in-turn retries ran out ("Agent turn stopped after repeated resume attempts
    // made no progress"): transient, and its "resume" is not the chat's (CURSOR-AGENT-CLI.md).
    code: "interrupted",
    pattern: /\bRetriableError\b|\brepeated\s+resume\s+attempts\s+made\s+no\s+progress\b/i,
    retryable: true,
  },
  {
    code: "process",
    pattern: /\b(?:heap\s+out\s+of\s+memory|Allocation\s+failed|out\s+of\s+memory)\b/i,
    retryable: true,
  },
  {
    code: "config",
    pattern: /--trust\b|\btrust\s+(?:this|the)\s+(?:folder|workspace|directory)\b/i,
  },
];

/**
 * Classifies a failed run.
 *
 * @param failure stderr tail, error result, exit status and whether it was a resume.
 * @returns The error to surface and whether the cached chat must be evicted.
 *
 * @example
 * ```ts
 * import { classifyCliFailure } from "./cli-error.ts";
 *
 * const quota = classifyCliFailure({ stderr: "Error: You've hit your usage limit", exitCode: 1, signal: null, resumed: true });
 * console.assert(quota.error.code === "usage_limit" && !quota.resumeSpecific);
 * const gone = classifyCliFailure({ stderr: "Error: Chat not found: abc123", exitCode: 1, signal: null, resumed: true });
 * console.assert(gone.resumeSpecific);
 * ```
 */
export function classifyCliFailure(failure: CliFailure): ClassifiedFailure {
  const text = stripAnsi(failure.resultError ?? failure.stderr).trim();
  const summary = summarize(text);
  const status = statusText(failure);
  if (failure.resumed && isResumeSpecificFailure(text)) {
    return {
      error: new CursorError("process", `Cursor could not resume the chat (${status}): ${summary}`),
      resumeSpecific: true,
    };
  }
  const known = CLASSES.find(({ pattern }) => pattern.test(text));
  if (known) {
    const options = known.retryable === undefined ? {} : { retryable: known.retryable };
    return {
      error: new CursorError(known.code, `Cursor CLI failed (${status}): ${summary}`, options),
      resumeSpecific: false,
    };
  }
  if (failure.signal === "SIGABRT" || failure.exitCode === 134) {
    return {
      error: new CursorError("process", `Cursor CLI aborted (${status}): ${summary}`),
      resumeSpecific: false,
    };
  }
  const detail = summary === "" ? "no error output" : summary;
  return {
    error: new CursorError("process", `Cursor CLI failed (${status}): ${detail}`),
    resumeSpecific: false,
  };
}

function statusText(failure: CliFailure): string {
  if (failure.signal !== null) return `signal ${failure.signal}`;
  if (failure.exitCode !== null && failure.exitCode !== 0) return `exit code ${failure.exitCode}`;
  return failure.resultError !== undefined ? "error result" : "no result";
}

function summarize(text: string): string {
  const lines = text.split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== "");
  const joined = lines.slice(0, 6).join(" | ");
  return joined.length > 600 ? `${joined.slice(0, 600)}…` : joined;
}

/** Removes ANSI colour and cursor sequences. */
export function stripAnsi(text: string): string {
  // deno-lint-ignore no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "");
}
