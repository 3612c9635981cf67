/**
 * The host tool calls a turn waits on: Cursor's exec requests bridged to host tool calls
 * (or refused, or answered at once), display-only todo mirrors, write probes and
 * interactions, and the host's results sent back on the Run as typed exec results. What
 * earlier results taught (file contents read, bytes probed) shapes later bridging.
 *
 * @module
 */
import type {
  LanguageModelV3Prompt,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import type { DebugLogger } from "../../../core/logger.ts";
import type { AgentRun } from "../../../agent-run/agent-run.ts";
import type { ExecServerMessage } from "../../../gen/agent/v1/exec_pb.ts";
import type { TodoItem } from "../../../gen/agent/v1/common_pb.ts";
import type { TaskArgs } from "../../../gen/agent/v1/tool_call_pb.ts";
import { todoWriteInput } from "../tools/todos.ts";
import { type BridgedCall, bridgeExec } from "../tools/exec-to-tool-call.ts";
import { execResultMessages } from "../tools/exec-results.ts";
import { type ResultMedia, withToolImages } from "../tools/media/tool-images.ts";
import type { HostTools } from "../tools/host-tools.ts";
import { toolResultText } from "../tools/tool-result-text.ts";
import { rawReadContent } from "../tools/files/read-output.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";
import type { PendingInteraction } from "../interactions/interaction-relay.ts";
import { TurnInteractions } from "../interactions/turn-interactions.ts";
import { withRuleReminder } from "../interactions/rule-reminder.ts";
import { ReissueWatch } from "./reissue-watch.ts";
import { parseProbe, type RawFile } from "../tools/files/raw-file.ts";
import type { ImageStaging } from "../tools/media/image-save.ts";
import { callIdOf } from "../../../conversation/checkpoint-eligibility.ts";
import type { PendingStepCall } from "../../../conversation/conversation-state.ts";

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

/** Receives a stream part. */
type Emit = (part: LanguageModelV3StreamPart) => void;

/** Closes the open text or reasoning part before a tool call (its closing parts). */
type CloseOpen = () => LanguageModelV3StreamPart[];

/** The host tool calls of one turn, across its `doStream` calls. */
export class HostToolCalls {
  /** Questions, mode switches and plans: their rules, effects and host calls. */
  readonly interactions: TurnInteractions;
  /** Host tool calls emitted so far. */
  count = 0;
  readonly #run: AgentRun;
  readonly #pending = new Map<string, PendingCall>();
  #todoSignature: string | undefined;
  readonly #reads = new Map<string, string>();
  /** Files whose bytes were probed before a write (`null`: absent, `undefined`: unknown). */
  readonly #files = new Map<string, RawFile | null | undefined>();
  /** Writes waiting for their probe, bridged again at the next pump. */
  readonly #deferred: ExecServerMessage[] = [];
  /** Task display arguments by call id (the subagent exec that follows carries no description). */
  readonly #tasks = new Map<string, TaskArgs>();
  readonly #newId: () => string;
  readonly #logger: DebugLogger;
  readonly #workspaceRoot: string;
  readonly #images: ImageStaging | undefined;
  /** The batch Cursor re-issues on a continued Run, answered with the host's results. */
  readonly reissue: ReissueWatch = new ReissueWatch();

  constructor(options: {
    run: AgentRun;
    newId: () => string;
    logger: DebugLogger;
    workspaceRoot: string;
    /** Where generated images wait for the host's save tool. */
    images?: ImageStaging | undefined;
  }) {
    this.#run = options.run;
    this.#newId = options.newId;
    this.#logger = options.logger;
    this.#workspaceRoot = options.workspaceRoot;
    this.#images = options.images;
    this.interactions = new TurnInteractions({
      send: (value) => this.#run.send({ message: { case: "interactionResponse", value } }),
      hold: (id, pending) => {
        this.#pending.set(id, pending);
        this.count++;
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
   * The calls the host owes, with Cursor's tool call ids: `undefined` unless each stands for
   * an exec Cursor can re-issue (or is display-only, `cursorCallId` empty).
   */
  pendingStepCalls(): PendingStepCall[] | undefined {
    const calls: PendingStepCall[] = [];
    for (const [hostCallId, pending] of this.#pending) {
      if (pending.kind === "display") {
        calls.push({ cursorCallId: "", hostCallId, toolName: "" });
        continue;
      }
      if (pending.kind !== "exec") return undefined;
      const cursorCallId = callIdOf(pending.exec.message.value);
      if (cursorCallId === undefined) return undefined;
      calls.push({ cursorCallId, hostCallId, toolName: pending.call.toolName });
    }
    return calls;
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
   * @param media Images that came with the results, by tool call id, and what they are
   *   checked against (see tools/tool-images.ts).
   * @returns Warnings for the host.
   */
  async deliver(
    results: readonly LanguageModelV3ToolResultPart[],
    missingReason: string,
    reminder: { readonly text: string; readonly sent: () => void } | undefined,
    media?: ResultMedia,
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
      const images = media?.images.get(result.toolCallId) ?? [];
      if (images.length > 0 && !canCarryImages(pending.call.result.kind)) {
        warnings.push(
          `${images.length} image(s) from the ${result.toolName} tool were left out: Cursor's ${pending.call.result.kind} result cannot carry images`,
        );
      }
      const messages = media === undefined || !canCarryImages(pending.call.result.kind)
        ? execResultMessages(pending.call.result, text)
        : await withToolImages(
          execResultMessages(pending.call.result, text),
          images,
          media.scope,
        );
      const reminded = unsent === undefined ? undefined : withRuleReminder(messages, unsent.text);
      if (reminded !== undefined) {
        unsent?.sent();
        unsent = undefined;
      }
      await this.#run.answerExec(pending.exec.id, reminded ?? messages);
    }
    await this.#refuseUnanswered(missingReason, warnings);
    return warnings;
  }

  /** Refuses every call the host returned no result for (a probe is bridged again blind). */
  async #refuseUnanswered(missingReason: string, warnings: string[]): Promise<void> {
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
      await this.#run.refuseExec(pending.exec, missingReason);
      warnings.push(`The host returned no result for tool call ${id}; Cursor was told`);
    }
  }

  /**
   * Bridges the writes whose probe came back (deferred at the last pass).
   *
   * @returns Whether a host tool call was emitted.
   */
  async bridgeDeferred(tools: HostTools, emit: Emit, closeOpen: CloseOpen): Promise<boolean> {
    let emitted = false;
    for (const exec of this.#deferred.splice(0)) {
      emitted = (await this.bridge(exec, tools, emit, closeOpen)) || emitted;
    }
    return emitted;
  }

  /**
   * Emits a host tool call for the exec, or refuses it, or answers it at once.
   *
   * @returns Whether a host tool call was emitted.
   */
  async bridge(
    exec: ExecServerMessage,
    tools: HostTools,
    emit: Emit,
    closeOpen: CloseOpen,
  ): Promise<boolean> {
    if (this.reissue.awaiting) return await this.#answerReissued(exec, tools);
    const stopped = this.interactions.stopReason;
    if (stopped !== undefined) {
      await this.#run.refuseExec(exec, stopped);
      return false;
    }
    const decision = this.#decide(exec, tools);
    if (decision.type === "refuse") {
      emitDiagnostic(this.#logger, {
        kind: "exec-refused",
        execCase: String(exec.message.case),
        reason: decision.reason,
      });
      await this.#run.refuseExec(exec, decision.reason);
      return false;
    }
    if (decision.type === "answer") {
      const text = { text: decision.text, isError: false, denied: false };
      await this.#run.answerExec(exec.id, execResultMessages(decision.result, text));
      return false;
    }
    for (const part of closeOpen()) emit(part);
    const toolCallId = `cursor_${this.#newId()}`;
    const toolName = decision.type === "probe" ? decision.toolName : decision.call.toolName;
    const input = JSON.stringify(decision.type === "probe" ? decision.input : decision.call.input);
    emitToolCall(emit, toolCallId, toolName, input);
    this.#pending.set(
      toolCallId,
      decision.type === "probe"
        ? { kind: "probe", exec, path: decision.path, nonce: decision.nonce }
        : { kind: "exec", exec, call: decision.call },
    );
    this.count++;
    return true;
  }

  #decide(exec: ExecServerMessage, tools: HostTools) {
    return bridgeExec(exec, {
      tools,
      reads: this.#reads,
      files: this.#files,
      nonce: () => this.#newId().replaceAll("-", ""),
      workspaceRoot: this.#workspaceRoot,
      tasks: this.#tasks,
      images: this.#images,
    });
  }

  /**
   * An exec of the re-issued batch: it stands for the host call whose result came, and is
   * answered with it once the whole batch is here (nothing goes to the host).
   *
   * @returns `false`: no host tool call was emitted.
   * @throws {CursorError} `interrupted` when the exec is not one of the stored batch.
   */
  async #answerReissued(exec: ExecServerMessage, tools: HostTools): Promise<boolean> {
    const cursorCallId = callIdOf(exec.message.value);
    const result = this.reissue.resultFor(cursorCallId);
    const decision = this.#decide(exec, tools);
    if (decision.type !== "call" || decision.call.toolName !== result.toolName) {
      this.reissue.giveUp(`other-tool-${cursorCallId}`);
    }
    this.#pending.set(result.toolCallId, { kind: "exec", exec, call: decision.call });
    const whole = this.reissue.arrived(result);
    if (whole === undefined) return false;
    const { batch, results } = whole;
    batch.answered(await this.deliver(results, batch.missingReason, batch.reminder, batch.media));
    return false;
  }

  /** Remembers a task's display arguments for the subagent exec that follows. */
  noteTask(callId: string, args: TaskArgs): void {
    this.#tasks.set(callId, args);
  }

  /**
   * Mirrors Cursor's todo list into the host's todo tool (display only: nothing goes back
   * to Cursor), only when the list changed.
   *
   * @returns Whether a host tool call was emitted.
   */
  mirrorTodos(
    todos: readonly TodoItem[] | undefined,
    tools: HostTools,
    emit: Emit,
    closeOpen: CloseOpen,
  ): boolean {
    const tool = tools.byRole.todo;
    if (todos === undefined || tool === undefined) return false;
    const input = todoWriteInput(todos, tool);
    const signature = JSON.stringify(input);
    if (signature === this.#todoSignature) return false;
    this.#todoSignature = signature;
    for (const part of closeOpen()) emit(part);
    const toolCallId = `cursor_todos_${this.#newId()}`;
    emitToolCall(emit, toolCallId, tool.name, signature);
    this.#pending.set(toolCallId, { kind: "display" });
    this.count++;
    return true;
  }

  /** Forgets the call standing for an exec Cursor aborted. */
  abort(execId: number): void {
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
   * Answers the interactions still waiting before the Run is released for a new user
   * turn: with the host's recorded result when the prompt's history has one, else with an
   * explicit decline.
   *
   * @param prompt The new call's prompt.
   */
  async settleInteractions(prompt: LanguageModelV3Prompt): Promise<void> {
    const taken: PendingInteraction[] = [];
    for (const [id, pending] of this.#pending) {
      if (pending.kind !== "interaction") continue;
      this.#pending.delete(id);
      taken.push({ ...pending, toolCallId: id });
    }
    await this.interactions.settleAll(taken, prompt);
  }
}

/** The four parts of one host tool call, its input whole. */
function emitToolCall(emit: Emit, toolCallId: string, toolName: string, input: string): void {
  emit({ type: "tool-input-start", id: toolCallId, toolName });
  emit({ type: "tool-input-delta", id: toolCallId, delta: input });
  emit({ type: "tool-input-end", id: toolCallId });
  emit({ type: "tool-call", toolCallId, toolName, input });
}

/** Cursor results that carry images: a read's bytes and a host (MCP) tool's content. */
function canCarryImages(kind: string): boolean {
  return kind === "read" || kind === "mcp";
}
