/**
 * The texts the fake prints: error messages in the CLI's documented wording (or,
 * where no wording was ever captured, a plausible one), the models list and the
 * version string.
 *
 * @module
 */

/** `--version` output. */
export const FAKE_VERSION = "2026.08.11-fake000";

/** Logged out (captured wording). */
export const AUTH_REQUIRED_TEXT =
  "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.";

/** Workspace not trusted (paraphrase of the captured advice). */
export const UNTRUSTED_TEXT =
  "Error: Workspace is not trusted. If you trust this folder, pass --trust, --yolo or -f to continue.";

/** Quota exhausted (captured multi-line block). */
export const QUOTA_TEXT = [
  "Error: You've hit your usage limit",
  "Get Cursor Pro for more Agent usage, unlimited Tab, and more.",
  "fallbackModel: ",
  "spendLimitHit: false",
  "chatMessage: *You've hit your free requests limit. Your limit will reset when your monthly cycle ends on 10/2/2026.*",
  "spendLimits: [50,100,200]",
].join("\n");

/** A network failure (no capture exists; plausible Connect wording). */
export const NETWORK_TEXT =
  "ConnectError: [unavailable] fetch failed (connect ECONNREFUSED 127.0.0.1:443)";

/** Node's heap exhaustion message (the CLI runs on Node). */
export const OOM_TEXT = [
  "",
  "<--- Last few GCs --->",
  "",
  "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
].join("\n");

/** A resume-flavoured failure that is not about the chat (must not evict). */
export const RESUME_TRANSIENT_TEXT = "Error: resume failed due to network error";

/** The CLI's own in-turn retries ran out: transient, not about the chat (must not evict). */
export const NO_PROGRESS_TEXT =
  "RetriableError: Agent turn stopped after repeated resume attempts made no progress";

/** Error text for a model the account cannot use. */
export function modelErrorText(model: string): string {
  return `Cannot use this model: ${model}. Available models: auto, gpt-5, sonnet-4.5`;
}

/** Default error text for an unknown chat on `--resume`. */
export function chatNotFoundText(chatId: string): string {
  return `Error: Chat not found: ${chatId}`;
}

/** The `models` subcommand's output. */
export const MODELS_TEXT = [
  "Available models",
  "",
  "auto - Auto (current, default)",
  "gpt-5 - OpenAI GPT-5",
  "sonnet-4.5 - Claude 4.5 Sonnet",
  "sonnet-4.5-thinking - Claude 4.5 Sonnet (Thinking)",
  "",
  "Tip: use --model <id> to switch.",
].join("\n");

/** The display name the fake reports for a model id. */
export function modelDisplayName(model: string | undefined): string {
  if (model === undefined || model === "auto") return "Auto";
  return `Fake ${model}`;
}
