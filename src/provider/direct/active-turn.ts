/**
 * One turn of a held Run as the provider drives it across `doStream` calls: pumping
 * events into stream parts, bridging exec requests to host tool calls (collecting a
 * parallel batch), pausing with `finish: tool-calls` while the host runs them, and
 * resuming when their results come back.
 *
 * @module
 */
import type {
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import type { DebugLogger } from "../../core/logger.ts";
import type { AgentRun } from "../../session/agent-run.ts";
import type { RunEvent } from "../../session/run-events.ts";
import { ReplayGuard } from "../../session/recovery-guard.ts";
import { CheckpointEligibility } from "../../session/checkpoint-eligibility.ts";
import type { ExecServerMessage } from "../../gen/agent/v1/exec_pb.ts";
import type { TodoItem } from "../../gen/agent/v1/common_pb.ts";
import type { TaskToolArgs } from "../../gen/agent/v1/tool_call_pb.ts";
import { todoWriteInput } from "./tools/todos.ts";
import {
  closeOpenParts,
  createRunStreamState,
  mapRunEvent,
  type RunStreamState,
} from "./run-stream.ts";
import { type BridgedCall, bridgeExec } from "./tools/exec-to-tool-call.ts";
import { execResultMessages } from "./tools/exec-results.ts";
import type { HostTools } from "./tools/host-tools.ts";
import { toolResultText } from "./tools/tool-result-text.ts";
import { rawReadContent } from "./tools/read-output.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";
import type { PendingInteraction } from "./interactions/interaction-relay.ts";
import { TurnInteractions } from "./interactions/turn-interactions.ts";
import { withRuleReminder } from "./interactions/rule-reminder.ts";
import { parseProbe, type RawFile } from "./tools/raw-file.ts";
import type { ImageStaging } from "./tools/image-save.ts";

/** How long to wait for more exec requests of the same batch (parallel tool calls). */
export const BATCH_WINDOW_MS = 120;

/** A host tool call waiting for its result: one standing for an exec, or a display-only mirror. */
type PendingCall =
  | { readonly kind: "exec"; readonly exec: ExecServerMessage; readonly call: BridgedCall }
  | { readonly kind: "display" }
  | PendingInteraction
  | {
    readonly kind: "probe";
    readonly exec: ExecServerMessage;
    readonly path: string;
    readonly nonce: string;
  };

/** Why a pump stopped. */
export type PumpOutcome = "tool-calls" | "turn-ended";

/** Everything a turn carries between `doStream` calls. */
export class ActiveTurn {
  readonly run: AgentRun;
  readonly events: AsyncGenerator<RunEvent, void, undefined>;
  readonly conversationId: string;
  readonly modelId: string;
  /** Context occupancy of the checkpoint the Run started from. */
  readonly priorUsed: number | undefined;
  /** The prior checkpoint's categories. */
  readonly priorCategories: Record<string, number> | undefined;
  state: RunStreamState = createRunStreamState();
  /** How the Run started (continuity, request context), repeated on every pass's diagnostics. */
  startFacts: {
    readonly continuity: string;
    readonly coldReason: string | undefined;
    readonly requestContext: string;
    readonly requestContextHash: string;
    readonly systemPromptHash: string;
    readonly systemPromptSent: boolean;
  } | undefined;
  pumpPasses = 0;
  toolCalls = 0;
  /** Replay barriers seen on this Run (a replay is safe only before the first). */
  readonly guard: ReplayGuard = new ReplayGuard();
  /** Replay barriers seen since the current pass began. */
  passGuard: ReplayGuard = new ReplayGuard();
  /** The turn's latest resume-eligible checkpoint (carried over to a resumed attempt). */
  checkpoints: CheckpointEligibility = new CheckpointEligibility();
  /** This attempt continues an interrupted one from a checkpoint (`resume_action`). */
  resumed = false;
  /** Why the Run failed while it was held for the host's tool results, if it did. */
  heldFailure: unknown;
  #next: Promise<IteratorResult<RunEvent, void>> | undefined;
  readonly #pending = new Map<string, PendingCall>();
  #todoSignature: string | undefined;
  readonly #reads = new Map<string, string>();
  /** Files whose bytes were probed before a write (`null`: absent, `undefined`: unknown). */
  readonly #files = new Map<string, RawFile | null | undefined>();
  /** Writes waiting for their probe, bridged again at the next pump. */
  readonly #deferred: ExecServerMessage[] = [];
  /** Task display arguments by call id (the subagent exec that follows carries no description). */
  readonly #tasks = new Map<string, TaskToolArgs>();
  readonly #newId: () => string;
  readonly #logger: DebugLogger;
  readonly #workspaceRoot: string;
  /** Questions, mode switches and plans: their rules, effects and host calls. */
  readonly interactions: TurnInteractions;
  readonly #images: ImageStaging | undefined;

  constructor(options: {
    run: AgentRun;
    conversationId: string;
    modelId: string;
    priorUsed: number | undefined;
    priorCategories?: Record<string, number> | undefined;
    newId: () => string;
    logger: DebugLogger;
    workspaceRoot: string;
    /** Where generated images wait for the host's save tool. */
    images?: ImageStaging | undefined;
  }) {
    this.#images = options.images;
    this.run = options.run;
    this.events = options.run.events();
    this.conversationId = options.conversationId;
    this.modelId = options.modelId;
    this.priorUsed = options.priorUsed;
    this.priorCategories = options.priorCategories;
    this.#newId = options.newId;
    this.#logger = options.logger;
    this.#workspaceRoot = options.workspaceRoot;
    this.interactions = new TurnInteractions({
      send: (value) => this.run.send({ message: { case: "interactionResponse", value } }),
      hold: (id, pending) => {
        this.#pending.set(id, pending);
        this.toolCalls++;
      },
      newId: this.#newId,
      workspaceRoot: this.#workspaceRoot,
      images: options.images,
    });
  }

  /** Tool call ids the host still owes a result for. */
  get pendingIds(): string[] {
    return [...this.#pending.keys()];
  }

  /**
   * Starts the next pump: a fresh mapper state for this `doStream` call.
   */
  beginPass(): void {
    this.pumpPasses++;
    this.passGuard = new ReplayGuard();
    const previous = this.state;
    this.state = {
      ...createRunStreamState(),
      counters: previous.counters,
      latestUsed: previous.latestUsed,
      latestCheckpoint: previous.latestCheckpoint,
      checkpointCategories: previous.checkpointCategories,
      latestMax: previous.latestMax,
      latestCategories: previous.latestCategories,
      latestBreakdownTotal: previous.latestBreakdownTotal,
    };
  }

  /**
   * Sends the host's tool results back on the Run as typed exec results. Results for ids
   * this turn does not owe are ignored with a warning; owed results the host did not
   * return are refused explicitly so the Run never waits forever.
   *
   * @param results The tool result parts at the tail of the host's prompt.
   * @param missingReason What Cursor is told for an owed result the host did not return.
   * @param reminder A rule reminder for Cursor's model: it rides with the first host tool
   *   result that can carry text, and `sent` is called once it did.
   * @returns Warnings for the host.
   */
  async deliverResults(
    results: readonly LanguageModelV3ToolResultPart[],
    missingReason = "The host returned no result for this tool call",
    reminder?: { readonly text: string; readonly sent: () => void },
  ): Promise<string[]> {
    const warnings: string[] = [];
    let unsent = reminder;
    for (const result of results) {
      const pending = this.#pending.get(result.toolCallId);
      if (pending === undefined) {
        warnings.push(`Ignored a tool result for unknown call ${result.toolCallId}`);
        continue;
      }
      this.#pending.delete(result.toolCallId);
      if (pending.kind === "display") continue;
      const text = toolResultText(result.output);
      if (pending.kind === "interaction") {
        await this.interactions.deliver(pending, text);
        continue;
      }
      if (pending.kind === "probe") {
        this.#files.set(pending.path, parseProbe(text.text, pending.nonce));
        this.#deferred.push(pending.exec);
        continue;
      }
      if (pending.call.result.kind === "write") this.#files.delete(pending.call.result.path);
      if (pending.call.result.kind === "read" && !text.isError) {
        this.#reads.set(pending.call.result.path, rawReadContent(text.text).content);
      }
      const messages = execResultMessages(pending.call.result, text);
      const reminded = unsent === undefined ? undefined : withRuleReminder(messages, unsent.text);
      if (reminded !== undefined) {
        unsent?.sent();
        unsent = undefined;
      }
      await this.run.answerExec(pending.exec.id, reminded ?? messages);
    }
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      if (pending.kind === "display") continue;
      if (pending.kind === "interaction") {
        await this.interactions.abandon(pending, "The host returned no answer");
        warnings.push(`The host returned no result for tool call ${id}; Cursor was told`);
        continue;
      }
      if (pending.kind === "probe") {
        this.#files.set(pending.path, undefined);
        this.#deferred.push(pending.exec);
        continue;
      }
      await this.run.refuseExec(pending.exec, missingReason);
      warnings.push(`The host returned no result for tool call ${id}; Cursor was told`);
    }
    return warnings;
  }

  /**
   * Pumps events into parts until the turn ends or the host owes tool results.
   *
   * @param emit Receives each stream part.
   * @param tools The host tools offered in this call.
   * @returns Why the pump stopped.
   * @throws {CursorError} when the Run fails.
   */
  async pump(
    emit: (part: LanguageModelV3StreamPart) => void,
    tools: HostTools,
  ): Promise<PumpOutcome> {
    let batchOpen = false;
    const closeOpen = () => closeOpenParts(this.state);
    if (await this.interactions.beginPass(tools, emit, closeOpen)) return "tool-calls";
    for (const exec of this.#deferred.splice(0)) {
      batchOpen = (await this.#bridge(exec, tools, emit)) || batchOpen;
    }
    for (;;) {
      const upcoming: Promise<IteratorResult<RunEvent, void>> = this.#next ?? this.events.next();
      this.#next = upcoming;
      const next: IteratorResult<RunEvent, void> | "window-closed" = batchOpen
        ? await raceWindow(upcoming, BATCH_WINDOW_MS)
        : await upcoming;
      if (next === "window-closed") {
        // Held for the host's results: a Run that breaks meanwhile is known before they come.
        upcoming.catch((error: unknown) => {
          this.heldFailure ??= error;
        });
        return "tool-calls";
      }
      this.#next = undefined;
      if (next.done) {
        for (const part of closeOpenParts(this.state)) emit(part);
        return "turn-ended";
      }
      const event: RunEvent = next.value;
      this.guard.observe(event);
      this.passGuard.observe(event);
      this.checkpoints.observe(event);
      if (event.type === "exec") {
        batchOpen = (await this.#bridge(event.exec, tools, emit)) || batchOpen;
        continue;
      }
      if (event.type === "interaction") {
        batchOpen = (await this.interactions.start(event.query, emit, closeOpen)) || batchOpen;
        continue;
      }
      if (event.type === "exec-abort") {
        this.#abortPending(event.id);
        continue;
      }
      if (event.type === "tool-display" && event.toolCall?.tool.case === "taskToolCall") {
        const args = event.toolCall.tool.value.args;
        if (args !== undefined) this.#tasks.set(event.callId, args);
      }
      if (event.type === "warning") {
        emitDiagnostic(this.#logger, { kind: "run-warning", message: event.message });
        continue;
      }
      for (const part of mapRunEvent(this.state, event)) emit(part);
      // Cursor does not wait for a todo mirror, so the step ends here and the host runs it now.
      if (event.type === "checkpoint" && this.#mirrorTodos(event.todos, tools, emit)) {
        return "tool-calls";
      }
    }
  }

  /**
   * Mirrors Cursor's todo list into the host's todo tool (display only: nothing goes back
   * to Cursor). Only before `turn_ended`, only when the list changed.
   */
  #mirrorTodos(
    todos: readonly TodoItem[] | undefined,
    tools: HostTools,
    emit: (part: LanguageModelV3StreamPart) => void,
  ): boolean {
    const tool = tools.byRole.todo;
    if (todos === undefined || tool === undefined || this.state.counters !== undefined) {
      return false;
    }
    const input = todoWriteInput(todos, tool);
    const signature = JSON.stringify(input);
    if (signature === this.#todoSignature) return false;
    this.#todoSignature = signature;
    for (const part of closeOpenParts(this.state)) emit(part);
    const toolCallId = `cursor_todos_${this.#newId()}`;
    emit({ type: "tool-input-start", id: toolCallId, toolName: tool.name });
    emit({ type: "tool-input-delta", id: toolCallId, delta: signature });
    emit({ type: "tool-input-end", id: toolCallId });
    emit({ type: "tool-call", toolCallId, toolName: tool.name, input: signature });
    this.#pending.set(toolCallId, { kind: "display" });
    this.toolCalls++;
    return true;
  }

  /** Emits a host tool call for the exec, or refuses it. Returns whether a call was emitted. */
  async #bridge(
    exec: ExecServerMessage,
    tools: HostTools,
    emit: (part: LanguageModelV3StreamPart) => void,
  ): Promise<boolean> {
    const stopped = this.interactions.stopReason;
    if (stopped !== undefined) {
      await this.run.refuseExec(exec, stopped);
      return false;
    }
    const decision = bridgeExec(exec, {
      tools,
      reads: this.#reads,
      files: this.#files,
      nonce: () => this.#newId().replaceAll("-", ""),
      workspaceRoot: this.#workspaceRoot,
      tasks: this.#tasks,
      images: this.#images,
    });
    if (decision.type === "refuse") {
      emitDiagnostic(this.#logger, {
        kind: "exec-refused",
        execCase: String(exec.message.case),
        reason: decision.reason,
      });
      await this.run.refuseExec(exec, decision.reason);
      return false;
    }
    if (decision.type === "answer") {
      const text = { text: decision.text, isError: false, denied: false };
      await this.run.answerExec(exec.id, execResultMessages(decision.result, text));
      return false;
    }
    for (const part of closeOpenParts(this.state)) emit(part);
    const toolCallId = `cursor_${this.#newId()}`;
    const toolName = decision.type === "probe" ? decision.toolName : decision.call.toolName;
    const input = JSON.stringify(decision.type === "probe" ? decision.input : decision.call.input);
    emit({ type: "tool-input-start", id: toolCallId, toolName });
    emit({ type: "tool-input-delta", id: toolCallId, delta: input });
    emit({ type: "tool-input-end", id: toolCallId });
    emit({ type: "tool-call", toolCallId, toolName, input });
    this.#pending.set(
      toolCallId,
      decision.type === "probe"
        ? { kind: "probe", exec, path: decision.path, nonce: decision.nonce }
        : { kind: "exec", exec, call: decision.call },
    );
    this.toolCalls++;
    return true;
  }

  #abortPending(execId: number): void {
    const deferred = this.#deferred.findIndex((exec) => exec.id === execId);
    if (deferred !== -1) this.#deferred.splice(deferred, 1);
    for (const [id, pending] of this.#pending) {
      if ((pending.kind === "exec" || pending.kind === "probe") && pending.exec.id === execId) {
        this.#pending.delete(id);
        emitDiagnostic(this.#logger, { kind: "exec-aborted", execId, toolCallId: id });
      }
    }
  }

  /**
   * Answers the interactions still waiting on this Run before it is released for a new
   * user turn: with the host's recorded result when the prompt's history has one, else
   * with an explicit decline.
   *
   * @param prompt The new call's prompt.
   */
  async settleInteractions(prompt: LanguageModelV3Prompt): Promise<void> {
    await this.interactions.settleAll(this.#takeInteractions(), prompt);
  }

  #takeInteractions(): PendingInteraction[] {
    const taken: PendingInteraction[] = [];
    for (const [id, pending] of this.#pending) {
      if (pending.kind !== "interaction") continue;
      this.#pending.delete(id);
      taken.push({ ...pending, toolCallId: id });
    }
    return taken;
  }

  /** Closes the Run and refuses nothing more (the Run is gone). */
  close(): void {
    this.run.close();
  }
}

async function raceWindow<T>(promise: Promise<T>, ms: number): Promise<T | "window-closed"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const window = new Promise<"window-closed">((resolve) => {
    timer = setTimeout(() => resolve("window-closed"), ms);
  });
  try {
    return await Promise.race([promise, window]);
  } finally {
    clearTimeout(timer);
  }
}
