/**
 * The CLI backend: each call runs Cursor's own `cursor-agent` CLI as a subprocess
 * (through an injected {@link ProcessRunner}), writes the prompt to its stdin and maps
 * its stream-json output to stream parts. With session resume switched on, later turns
 * continue the same Cursor chat with `--resume` and send only the new messages.
 *
 * The stream is one pipeline: stdout bytes → line decoder → stream-json parser (sans-IO,
 * in `src/cli`) → event mapper → stream parts, ending in `finish`. A failed run ends
 * with an `error` part (the CLI's own words, exit status, error code) and a `finish`
 * with reason `error`; the call itself rejects only when nothing could be started (no
 * binary, an unsafe model id or workspace).
 *
 * @module
 */
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { CursorError } from "../../core/cursor-error.ts";
import { configuredApiKey } from "../../auth/api-key.ts";
import {
  createCredentialRedactor,
  type CredentialRedactor,
  redactingLogger,
} from "../../auth/credential-redactor.ts";
import { type DebugLogger, silentLogger } from "../../core/logger.ts";
import type { CursorAgentPermissions } from "../../cli/argv.ts";
import { isSessionResumeEnabled } from "../../cli/env-flags.ts";
import type { ProcessRunner } from "../../cli/process-runner.ts";
import { buildFullPrompt } from "./prompt-builder.ts";
import type { ResumeCache } from "../../cli/resume-cache.ts";
import { planResume } from "./resume-plan.ts";
import {
  createResumePersistence,
  type ResumeCacheFile,
  type ResumePersistence,
} from "./resume-persistence.ts";
import type { ToolExecution } from "./stream-mapper.ts";
import { hostToolsOf, toolFingerprint } from "./tool-fingerprint.ts";
import type { ApiCallContext } from "../api-call-error.ts";
import type { BackendCapabilities, CallArgs } from "../model-call/call-args.ts";
import { callWorkspace } from "../model-call/call-workspace.ts";
import { CursorLanguageModel } from "../language-model.ts";
import type { BackendTurn, TurnBackend } from "../turn-backend.ts";
import { argvFor, childEnvironment, permissionsOf, runTurn, type TurnContext } from "./run-turn.ts";

export { createResumeCache, type ResumeCache } from "../../cli/resume-cache.ts";
export type { ProcessRunner } from "../../cli/process-runner.ts";

/** Default: stop a run after five minutes without any output from the CLI. */
export const DEFAULT_IDLE_TIMEOUT_MS = 5 * 60 * 1000;

/**
 * What a user can set for the CLI backend (`createCursor({ backend: "cli", cli: { ... } })`).
 *
 * @example Settings for a trusted project where Cursor may run tools itself
 * ```ts
 * import type { CliBackendSettings } from "./cli-backend.ts";
 *
 * const settings: CliBackendSettings = {
 *   workspace: "/home/me/project",
 *   toolExecution: "cursor",
 *   force: true,
 *   sessionResume: true,
 * };
 * console.assert(settings.force === true);
 * ```
 */
export interface CliBackendSettings extends CursorAgentPermissions {
  /**
   * Path of the `cursor-agent` (or `agent`) binary. Default: looked up on PATH,
   * then in the installer's locations (`~/.local/bin`, `~/.cursor/bin`,
   * `%LOCALAPPDATA%\cursor-agent` on Windows).
   */
  readonly binaryPath?: string;
  /**
   * The directory Cursor works in (`--workspace`, and the process's cwd) when a call names
   * none (`providerOptions.cursor.workspace`). Default: the current directory at call time.
   */
  readonly workspace?: string;
  /**
   * Who runs the tools Cursor's agent calls. `host` (default): calls that match a
   * tool the host offered (bash, read, edit, write, grep, glob, todowrite, webfetch)
   * are handed to the host and the CLI is stopped; other calls run inside Cursor and
   * are reported as provider-executed. `cursor`: Cursor runs everything and the host
   * only sees provider-executed calls (pair it with `force: true`).
   */
  readonly toolExecution?: ToolExecution;
  /**
   * Continue the same Cursor chat across turns with `--resume`. Default: the
   * environment variable `CURSOR_ACP_SESSION_RESUME` (`1`, `true`, `on`, `yes`).
   */
  readonly sessionResume?: boolean;
  /** Stop a run after this many milliseconds without output (0: never). Default five minutes. */
  readonly idleTimeoutMs?: number;
}

/**
 * What the {@link CliBackend} is built with: the user's settings
 * (resolved) plus the injected runtime pieces. A provider creates one resume cache
 * and shares it between all models it creates.
 *
 * @example Wiring for Node-compatible runtimes
 * ```ts
 * import process from "node:process";
 * import { findCursorAgent } from "../../adapters/node/process/find-cursor-agent.ts";
 * import { createNodeProcessRunner } from "../../adapters/node/process/process-runner.ts";
 * import { createResumeCache, type CliBackendConfig } from "./cli-backend.ts";
 *
 * const settings = { force: false, sessionResume: true };
 * const config: CliBackendConfig = {
 *   ...settings,
 *   runner: createNodeProcessRunner(),
 *   binaryPath: findCursorAgent({ env: process.env }),
 *   workspace: process.cwd(),
 *   env: process.env,
 *   resumeCache: createResumeCache(),
 * };
 * console.assert(config.resumeCache.size === 0);
 * ```
 */
export interface CliBackendConfig extends Omit<CliBackendSettings, "binaryPath" | "workspace"> {
  /** Starts processes (the Node adapter in production, stubs in tests). */
  readonly runner: ProcessRunner;
  /** The resolved binary; `undefined` when discovery found none (calls then fail with advice). */
  readonly binaryPath: string | undefined;
  /**
   * The workspace directory of calls that name none: a fixed directory, or a getter read at
   * call time (the Node entry's current directory).
   */
  readonly workspace: string | (() => string);
  /**
   * The environment: read for `CURSOR_ACP_SESSION_RESUME` and given to the child
   * process as its whole environment.
   */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * A Cursor API key; trimmed and checked like the direct backend's key (a malformed one
   * fails each call with a `config` error before anything starts), then passed to the
   * child as `CURSOR_API_KEY`, never in argv. Redacted from the debug log and errors.
   */
  readonly apiKey?: string | undefined;
  /** The resume map of this provider instance (from `createResumeCache()`). */
  readonly resumeCache: ResumeCache;
  /** Where the resume map survives restarts (the Node entry: an owner-only file). */
  readonly resumeFile?: ResumeCacheFile | undefined;
  /** Diagnostic lines. Default: silent. */
  readonly logger?: DebugLogger;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: () => number;
  /** The provider's name, the first part of the provider id (`cursor.cli`). Default `cursor`. */
  readonly providerName?: string;
  /** How errors for missing or refused credentials say to sign in (the host's own way). */
  readonly signInAdvice?: string | undefined;
}

/**
 * Creates a language model that drives the `cursor-agent` CLI.
 *
 * @param modelId The concrete Cursor model id passed to `--model` (e.g. `auto`, `gpt-5`).
 * @param config Runner, binary, workspace, environment, resume cache and settings.
 * @returns A `LanguageModelV3`.
 *
 * @example Generating with a stub runner that plays a recorded CLI run
 * ```ts
 * import { createCliLanguageModel, createResumeCache } from "./cli-backend.ts";
 *
 * const lines = [
 *   '{"type":"system","subtype":"init","session_id":"chat-1","model":"Auto"}',
 *   '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Hi!"}]},"session_id":"chat-1"}',
 *   '{"type":"result","subtype":"success","is_error":false,"result":"Hi!","session_id":"chat-1"}',
 * ];
 * const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
 * const model = createCliLanguageModel("auto", {
 *   runner: {
 *     spawn: () => ({
 *       pid: 1,
 *       stdout: new ReadableStream({ start: (c) => { c.enqueue(bytes); c.close(); } }),
 *       stderr: new ReadableStream({ start: (c) => c.close() }),
 *       exited: Promise.resolve({ code: 0, signal: null }),
 *       kill() {},
 *     }),
 *   },
 *   binaryPath: "cursor-agent",
 *   workspace: "/tmp",
 *   env: {},
 *   resumeCache: createResumeCache(),
 * });
 * const result = await model.doGenerate({ prompt: [{ role: "user", content: [{ type: "text", text: "Say hi" }] }] });
 * console.assert(result.content[0]?.type === "text" && result.content[0].text === "Hi!");
 * console.assert(result.finishReason.unified === "stop");
 * ```
 */
export function createCliLanguageModel(modelId: string, config: CliBackendConfig): LanguageModelV3 {
  return new CursorLanguageModel(modelId, new CliBackend(config));
}

/** What the CLI takes from a call: no attachments. */
const CAPABILITIES: BackendCapabilities = {
  label: "cursor-agent",
  files: "none",
  rawChunks: true,
};

/**
 * The CLI backend of one provider; every model of the provider shares it (and its
 * resume cache).
 *
 * @example
 * ```ts
 * import { CliBackend, createResumeCache } from "./cli-backend.ts";
 *
 * const backend = new CliBackend({
 *   runner: { spawn: () => { throw new Error("not started in this example"); } },
 *   binaryPath: "cursor-agent",
 *   workspace: "/tmp",
 *   env: {},
 *   resumeCache: createResumeCache(),
 * });
 * console.assert(backend.providerId === "cursor.cli");
 * ```
 */
export class CliBackend implements TurnBackend {
  /** This is the CLI backend. */
  readonly name = "cli";
  /** What it can take from a call. */
  readonly capabilities: BackendCapabilities;
  readonly #config: CliBackendConfig;
  readonly #persistence: ResumePersistence | undefined;
  readonly #redactor: CredentialRedactor = createCredentialRedactor();
  readonly #logger: DebugLogger;

  /**
   * @param config Runner, binary, workspace, environment, resume cache and settings.
   */
  constructor(config: CliBackendConfig) {
    this.#config = config;
    this.capabilities = { ...CAPABILITIES, optionsKey: config.providerName ?? "cursor" };
    this.#redactor.remember(config.apiKey);
    this.#logger = redactingLogger(config.logger ?? silentLogger, this.#redactor);
    this.#persistence = config.resumeFile === undefined ? undefined : createResumePersistence(
      config.resumeCache,
      config.resumeFile,
      this.#logger,
      config.clock ?? Date.now,
    );
  }

  /** `<provider name>.cli`. */
  get providerId(): string {
    return `${this.#config.providerName ?? "cursor"}.cli`;
  }

  /**
   * A `cursor-agent:` pseudo URL naming the model.
   *
   * @param modelId The model id.
   * @returns The URL and the model.
   */
  errorContext(modelId: string): ApiCallContext {
    return {
      url: `cursor-agent:${modelId}`,
      requestBodyValues: { model: modelId, workspace: this.#defaultWorkspace() },
      ...(this.#config.signInAdvice === undefined
        ? {}
        : { signInAdvice: this.#config.signInAdvice }),
    };
  }

  /**
   * Removes the API key (and anything shaped like a key or token) from the error: message,
   * stack, causes and data, so no view of it shows the key.
   *
   * @param error The converted error.
   * @returns The same error, redacted.
   */
  reportFailure(error: Error): Error {
    return this.#redactor.redactError(error);
  }

  /** The directory of a call that names none. */
  #defaultWorkspace(): string {
    const workspace = this.#config.workspace;
    return typeof workspace === "string" ? workspace : workspace();
  }

  /**
   * Starts one run of the CLI (and at most one clean re-run, see `runTurn`).
   *
   * @param call The call's arguments.
   * @returns The run's parts and the argv summary.
   * @throws {CursorError} `config` when the API key is malformed, there is no binary, or the
   *   model id or workspace is unsafe.
   */
  async stream(call: CallArgs): Promise<BackendTurn> {
    const { options } = call;
    const internal = new AbortController();
    const context = await this.#prepare(call, internal.signal);
    const onAbort = () => internal.abort(options.abortSignal?.reason);
    if (options.abortSignal?.aborted) onAbort();
    options.abortSignal?.addEventListener("abort", onAbort, { once: true });
    let open = true;
    const stream = new ReadableStream<LanguageModelV3StreamPart>({
      start: (controller) => {
        const end = (close: () => void) => {
          if (open) close();
          open = false;
          options.abortSignal?.removeEventListener("abort", onAbort);
        };
        runTurn(context, (parts) => {
          if (open) { for (const part of parts) controller.enqueue(part); }
        }).finally(() => this.#persistence?.save()).then(
          () => end(() => controller.close()),
          (error: unknown) => end(() => controller.error(error)),
        );
      },
      cancel: (reason) => {
        open = false;
        internal.abort(reason);
      },
    });
    const plan = context.plan;
    return {
      stream,
      requestBody: {
        argv: argvFor(context, plan.mode === "fresh" ? undefined : plan.chatId).slice(1),
        resume: plan.mode,
        resumeReason: plan.reason,
        workspace: context.workspace,
        promptBytes:
          new TextEncoder().encode(plan.mode === "incremental" ? plan.prompt : context.fullPrompt)
            .length,
      },
    };
  }

  async #prepare(call: CallArgs, signal: AbortSignal): Promise<TurnContext> {
    const config = this.#config;
    const { modelId, options, tools } = call;
    const logger = this.#logger;
    const clock = config.clock ?? Date.now;
    const apiKey = configuredApiKey(config.apiKey);
    const binaryPath = config.binaryPath;
    if (binaryPath === undefined || binaryPath === "") {
      throw new CursorError(
        "config",
        "Cannot find cursor-agent on PATH or in its install locations; install it (curl https://cursor.com/install -fsS | bash) or set its path in the provider settings",
      );
    }
    const workspace = callWorkspace(options.providerOptions, config.providerName ?? "cursor") ??
      this.#defaultWorkspace();
    const fingerprint = await toolFingerprint(tools);
    await this.#persistence?.load();
    const plan = await planResume({
      enabled: config.sessionResume ?? isSessionResumeEnabled(config.env),
      workspace,
      model: modelId,
      prompt: options.prompt,
      toolFingerprint: fingerprint,
      cache: config.resumeCache,
      nowMs: clock(),
    });
    logger.line(`cursor-agent: model=${modelId} resume=${plan.mode} reason=${plan.reason}`);
    const context: TurnContext = {
      runner: config.runner,
      binaryPath,
      modelId,
      workspace,
      childEnv: childEnvironment(config.env, apiKey),
      permissions: permissionsOf(config),
      plan,
      fullPrompt: buildFullPrompt(options.prompt, tools),
      hostTools: hostToolsOf(tools),
      toolExecution: config.toolExecution ?? "host",
      cache: config.resumeCache,
      clock,
      logger,
      idleTimeoutMs: config.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      includeRaw: options.includeRawChunks === true,
      signal,
      secrets: apiKey === undefined ? [] : [apiKey],
    };
    // Throws CursorError `config` for an unsafe model id, workspace or chat id.
    argvFor(context, plan.mode === "fresh" ? undefined : plan.chatId);
    return context;
  }
}
