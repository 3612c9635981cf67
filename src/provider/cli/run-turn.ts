/**
 * Runs one turn of the CLI backend: the attempt the resume plan asks for, at most one
 * clean re-run with the full prompt in a fresh chat (when a resume was answered with
 * another chat, or failed in a resume-specific way before any output), the resume
 * cache update after success, and the closing `finish` part; and the child process's
 * environment and permission flags.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { CursorError, systemErrorCode } from "../../core/cursor-error.ts";
import type { DebugLogger } from "../../core/logger.ts";
import { buildCursorAgentArgv, type CursorAgentPermissions } from "../../cli/argv.ts";
import { classifyCliFailure } from "../../cli/cli-error.ts";
import type { JsonValue } from "../../cli/json.ts";
import type { ProcessRunner } from "../../cli/process-runner.ts";
import { isSafeChatId, type ResumeCache } from "../../cli/resume-cache.ts";
import { entryFor, type ResumePlan } from "./resume-plan.ts";
import { createStreamMapper, type StreamMapper, type ToolExecution } from "./stream-mapper.ts";
import type { HostTool } from "../../cli/tool-routing.ts";
import { type AttemptOutcome, runAttempt } from "./run-attempt.ts";

/** Everything a turn needs, resolved by the language model. */
export interface TurnContext {
  readonly runner: ProcessRunner;
  readonly binaryPath: string;
  readonly modelId: string;
  readonly workspace: string;
  readonly childEnv: Readonly<Record<string, string>>;
  readonly permissions: CursorAgentPermissions;
  readonly plan: ResumePlan;
  readonly fullPrompt: string;
  readonly hostTools: readonly HostTool[];
  readonly toolExecution: ToolExecution;
  readonly cache: ResumeCache;
  readonly clock: () => number;
  readonly logger: DebugLogger;
  readonly idleTimeoutMs: number;
  readonly includeRaw: boolean;
  readonly signal: AbortSignal;
  /** Removed from any error text before it is shown. */
  readonly secrets: readonly string[];
}

interface AttemptSpec {
  readonly mode: ResumePlan["mode"];
  readonly chatId?: string;
  readonly stdin: string;
}

type Verdict =
  | { readonly kind: "success" }
  | { readonly kind: "retry"; readonly reason: string }
  | { readonly kind: "fail"; readonly error: CursorError }
  | { readonly kind: "aborted" };

/**
 * Runs the turn and emits its parts (everything after `stream-start`).
 *
 * @param context The resolved turn.
 * @param emit Receives stream parts in order.
 * @throws {CursorError} `canceled` when the caller aborted (the abort reason is its cause).
 */
export async function runTurn(
  context: TurnContext,
  emit: (parts: readonly LanguageModelV3StreamPart[]) => void,
): Promise<void> {
  let spec = firstAttempt(context);
  for (let attempt = 1;; attempt++) {
    const mapper = createStreamMapper({
      hostTools: context.hostTools,
      toolExecution: context.toolExecution,
      logger: context.logger,
      now: context.clock,
    });
    const outcome = await runAttempt({
      runner: context.runner,
      argv: argvFor(context, spec.chatId),
      env: context.childEnv,
      cwd: context.workspace,
      stdin: spec.stdin,
      signal: context.signal,
      mapper,
      logger: context.logger,
      idleTimeoutMs: context.idleTimeoutMs,
      ...(spec.mode === "incremental" && spec.chatId !== undefined
        ? { expectedChatId: spec.chatId }
        : {}),
      includeRaw: context.includeRaw,
      emit,
    });
    const verdict = judge(context, spec, outcome, mapper);
    if (verdict.kind === "retry" && attempt === 1) {
      evict(context, verdict.reason);
      spec = { mode: "fresh", stdin: context.fullPrompt };
      continue;
    }
    if (verdict.kind === "aborted") throw abortReason(context.signal);
    if (verdict.kind === "success") commit(context, spec, mapper);
    const error = verdict.kind === "fail"
      ? verdict.error
      : verdict.kind === "retry"
      ? new CursorError("process", `Cursor CLI failed again after a fresh start: ${verdict.reason}`)
      : undefined;
    emit(mapper.finish(error, metadataOf(spec, attempt)));
    return;
  }
}

function firstAttempt(context: TurnContext): AttemptSpec {
  const plan = context.plan;
  switch (plan.mode) {
    case "incremental":
      return { mode: "incremental", chatId: plan.chatId, stdin: plan.prompt };
    case "full-resume":
      return { mode: "full-resume", chatId: plan.chatId, stdin: context.fullPrompt };
    case "fresh":
      return { mode: "fresh", stdin: context.fullPrompt };
  }
}

/** Builds argv; exported checks already ran in the model, so this cannot throw for a safe plan. */
export function argvFor(
  context: Pick<TurnContext, "binaryPath" | "modelId" | "workspace" | "permissions">,
  chatId?: string,
): string[] {
  return buildCursorAgentArgv({
    binaryPath: context.binaryPath,
    model: context.modelId,
    workspace: context.workspace,
    ...context.permissions,
    ...(chatId === undefined ? {} : { resumeChatId: chatId }),
  });
}

function judge(
  context: TurnContext,
  spec: AttemptSpec,
  outcome: AttemptOutcome,
  mapper: StreamMapper,
): Verdict {
  switch (outcome.kind) {
    case "stopped":
      return { kind: "success" };
    case "aborted":
      return { kind: "aborted" };
    case "chat-mismatch":
      return {
        kind: "retry",
        reason:
          `asked to resume chat "${spec.chatId}", the CLI answered with chat "${outcome.chatId}"`,
      };
    case "spawn-failed":
      return { kind: "fail", error: spawnError(outcome.error, context.binaryPath) };
    case "idle-timeout":
      return {
        kind: "fail",
        error: new CursorError(
          "timeout",
          `Cursor CLI produced no output for ${context.idleTimeoutMs} ms and was stopped`,
        ),
      };
    case "exited":
      return judgeExit(context, spec, outcome, mapper);
  }
}

function judgeExit(
  context: TurnContext,
  spec: AttemptSpec,
  outcome: Extract<AttemptOutcome, { kind: "exited" }>,
  mapper: StreamMapper,
): Verdict {
  const result = mapper.result;
  const stderr = redact(outcome.stderr, context.secrets);
  if (
    (result !== undefined && !result.isError) || (result === undefined && outcome.exit.code === 0)
  ) {
    if (outcome.exit.code !== 0 || stderr.trim() !== "") {
      context.logger.line(
        `cursor-agent: run succeeded with exit ${outcome.exit.code}; stderr: ${stderr.slice(-500)}`,
      );
    }
    return { kind: "success" };
  }
  const classified = classifyCliFailure({
    stderr,
    ...(result?.isError ? { resultError: redact(result.text, context.secrets) } : {}),
    exitCode: outcome.exit.code,
    signal: outcome.exit.signal,
    resumed: spec.chatId !== undefined,
  });
  if (classified.resumeSpecific) {
    if (!mapper.visibleOutput) return { kind: "retry", reason: classified.error.message };
    evict(context, classified.error.message);
  } else if (
    spec.chatId !== undefined && !mapper.sawInit && outcome.exit.signal === null &&
    !isTransient(classified.error)
  ) {
    // A resume that fails before the chat opened, for a reason not known to pass: the
    // chat may be gone under a wording not recognised, so it must not stay pinned
    // (docs/decisions/077-cli-resume-eviction.md).
    evict(context, `resume failed before init: ${classified.error.message}`);
  }
  return { kind: "fail", error: classified.error };
}

function commit(context: TurnContext, spec: AttemptSpec, mapper: StreamMapper): void {
  const plan = context.plan;
  const chatId = mapper.sessionId;
  if (plan.commit === undefined) return;
  if (chatId === undefined) {
    context.logger.line("cursor-agent: the run reported no chat id; the next turn cannot resume");
    return;
  }
  if (!isSafeChatId(chatId)) {
    context.logger.line(
      `cursor-agent: chat id ${JSON.stringify(chatId.slice(0, 80))} is not safe; not cached`,
    );
    context.cache.evict(plan.commit.key);
    return;
  }
  if (spec.chatId !== undefined && chatId !== spec.chatId) {
    context.logger.line(
      `cursor-agent: asked to resume chat ${spec.chatId}, the CLI used chat ${chatId}`,
    );
  }
  context.cache.store(
    plan.commit.key,
    entryFor(plan.commit, chatId, mapper.reply, context.clock()),
  );
}

/** Failures that say nothing about the chat: the cached entry stays. */
const TRANSIENT_CODES: ReadonlySet<string> = new Set([
  "unauthenticated",
  "permission_denied",
  "usage_limit",
  "rate_limited",
  "unavailable",
  "network",
  "timeout",
  "interrupted",
  "canceled",
  "wrong_region",
  "outdated_client",
]);

function isTransient(error: CursorError): boolean {
  return error.retryable || TRANSIENT_CODES.has(error.code);
}

function evict(context: TurnContext, reason: string): void {
  const key = context.plan.commit?.key;
  if (key !== undefined && context.cache.evict(key)) {
    context.logger.line(`cursor-agent: evicted cached chat: ${reason}`);
  }
}

function metadataOf(spec: AttemptSpec, attempt: number): Record<string, JsonValue> {
  return { resume: spec.mode, attempts: attempt };
}

function spawnError(error: unknown, binaryPath: string): CursorError {
  const code = systemErrorCode(error);
  if (code === "ENOENT") {
    return new CursorError(
      "config",
      `Cannot start cursor-agent: "${binaryPath}" was not found; install it (curl https://cursor.com/install -fsS | bash) or set its path in the provider settings`,
      { cause: error },
    );
  }
  if (code === "EACCES") {
    return new CursorError(
      "config",
      `Cannot start cursor-agent: "${binaryPath}" is not executable`,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CursorError("process", `Cannot start cursor-agent "${binaryPath}": ${message}`, {
    cause: error,
  });
}

function redact(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length >= 4) result = result.replaceAll(secret, "[redacted]");
  }
  return result;
}

function abortReason(signal: AbortSignal): CursorError {
  return new CursorError("canceled", "Request was canceled", { cause: signal.reason });
}

/** The child process's whole environment: the parent's, plus `CURSOR_API_KEY` when given. */
export function childEnvironment(
  parent: Readonly<Record<string, string | undefined>>,
  apiKey: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value !== undefined) env[name] = value;
  }
  if (apiKey !== undefined) env["CURSOR_API_KEY"] = apiKey;
  return env;
}

/** The `cursor-agent` permission flags the settings set (unset ones are left out). */
export function permissionsOf(config: CursorAgentPermissions): CursorAgentPermissions {
  return {
    ...(config.force === undefined ? {} : { force: config.force }),
    ...(config.trust === undefined ? {} : { trust: config.trust }),
    ...(config.approveMcps === undefined ? {} : { approveMcps: config.approveMcps }),
    ...(config.sandbox === undefined ? {} : { sandbox: config.sandbox }),
  };
}
