/**
 * How a test steers the fake `cursor-agent`: environment variables, overridden by a
 * JSON scenario file named by `FAKE_CURSOR_AGENT_SCENARIO` (so a test can change the
 * behaviour between turns without recreating the provider), plus directives in the
 * prompt (see `directives.ts`).
 *
 * | Variable (`FAKE_CURSOR_AGENT_` + …) | Scenario key | Meaning |
 * |---|---|---|
 * | `RECORD` | — | JSON-lines file each invocation appends to |
 * | `STATE_DIR` | — | where chats persist between processes (memory only when unset) |
 * | `SCENARIO` | — | the scenario file |
 * | `UNKNOWN_RESUME` | `unknownResume` | `silent-new` (default), `silent-same`, `error`, `error-after-init` |
 * | `RESUME_ERROR_TEXT` | `resumeErrorText` | stderr for `error` modes (default `Error: Chat not found: <id>`) |
 * | `FORGET_CHATS` | `forgetChats` | treat every `--resume` id as unknown |
 * | `CHAT_ID` | `chatId` | the id of the next new chat (e.g. an unsafe one) |
 * | `AUTH` | `auth` | `none`: logged out unless `CURSOR_API_KEY`/`--api-key` is given |
 * | `REQUIRE_TRUST` | `requireTrust` | refuse to run without `--trust`/`--force` |
 * | `IGNORE_SIGTERM` | `ignoreSigterm` | keep running after SIGTERM (tests SIGKILL escalation) |
 * | `EVENT_DELAY_MS` | `eventDelayMs` | pause between events (default 0) |
 * | `TOOL_DELAY_MS` | `toolDelayMs` | pause between a tool's `started` and `completed` (default 300) |
 * | `DIRECTIVES` | `directives` | directives applied to every run, e.g. `::fail network` |
 *
 * @module
 */
import { isJsonObject, parseJson } from "../../cli/json.ts";

/** What happens on `--resume` with an id the fake does not know. */
export type UnknownResumeMode = "silent-new" | "silent-same" | "error" | "error-after-init";

/** The fake's behaviour settings. */
export interface FakeScenario {
  readonly unknownResume: UnknownResumeMode;
  readonly resumeErrorText?: string;
  readonly forgetChats: boolean;
  readonly chatId?: string;
  readonly auth: "ok" | "none";
  readonly requireTrust: boolean;
  readonly ignoreSigterm: boolean;
  readonly eventDelayMs: number;
  readonly toolDelayMs: number;
  readonly directives: string;
}

/** Environment variable prefix of the fake. */
export const FAKE_ENV_PREFIX = "FAKE_CURSOR_AGENT_";

const UNKNOWN_RESUME_MODES: readonly UnknownResumeMode[] = [
  "silent-new",
  "silent-same",
  "error",
  "error-after-init",
];

/**
 * Reads the scenario: defaults, then environment variables, then the scenario file.
 *
 * @param env The fake's environment.
 * @param fileText The scenario file's text, when there is one.
 * @returns The scenario.
 */
export function readScenario(
  env: Readonly<Record<string, string | undefined>>,
  fileText?: string,
): FakeScenario {
  const read = (name: string) => env[FAKE_ENV_PREFIX + name];
  const merged: Record<string, unknown> = {
    unknownResume: read("UNKNOWN_RESUME"),
    resumeErrorText: read("RESUME_ERROR_TEXT"),
    forgetChats: truthy(read("FORGET_CHATS")),
    chatId: read("CHAT_ID"),
    auth: read("AUTH"),
    requireTrust: truthy(read("REQUIRE_TRUST")),
    ignoreSigterm: truthy(read("IGNORE_SIGTERM")),
    eventDelayMs: numberOf(read("EVENT_DELAY_MS")),
    toolDelayMs: numberOf(read("TOOL_DELAY_MS")),
    directives: read("DIRECTIVES"),
  };
  if (fileText !== undefined && fileText.trim() !== "") {
    const parsed = parseJson(fileText);
    if (parsed.ok && isJsonObject(parsed.value)) Object.assign(merged, parsed.value);
  }
  const unknownResume = UNKNOWN_RESUME_MODES.find((mode) => mode === merged["unknownResume"]) ??
    "silent-new";
  return {
    unknownResume,
    forgetChats: merged["forgetChats"] === true,
    auth: merged["auth"] === "none" ? "none" : "ok",
    requireTrust: merged["requireTrust"] === true,
    ignoreSigterm: merged["ignoreSigterm"] === true,
    eventDelayMs: typeof merged["eventDelayMs"] === "number" ? merged["eventDelayMs"] : 0,
    toolDelayMs: typeof merged["toolDelayMs"] === "number" ? merged["toolDelayMs"] : 300,
    directives: typeof merged["directives"] === "string" ? merged["directives"] : "",
    ...(typeof merged["resumeErrorText"] === "string"
      ? { resumeErrorText: merged["resumeErrorText"] }
      : {}),
    ...(typeof merged["chatId"] === "string" ? { chatId: merged["chatId"] } : {}),
  };
}

function truthy(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  return ["1", "true", "on", "yes"].includes(value.trim().toLowerCase());
}

function numberOf(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 ? number : undefined;
}
