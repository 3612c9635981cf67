/**
 * Scripted scenarios: the emulated model as a function. A scenario receives a context
 * with the user's text, the rebuilt history and the advertised tools, and acts through
 * it (`text`, `think`, `tools`, `sleep`, `fault`). The default scenario is the directive
 * language ({@link directiveScenario}).
 *
 * @module
 */
import type { FaultSpec } from "../../faults/faults.ts";
import type { PlanStep, ToolSpec } from "../plan/directive-plan.ts";
import type { ToolFaultPoint } from "../plan/fault-directive.ts";
import { parseDirectives } from "../plan/directive-plan.ts";
import { readRebuiltTurn } from "./continuation.ts";
import { clip } from "../../observe/log.ts";
import { newestUserText } from "../../../directives/directive-language.ts";
import { requestedSchema, sampleForSchema } from "./schema-answer.ts";

/**
 * One message of the rebuilt conversation.
 *
 * @example
 * ```ts
 * import type { HistoryMessage } from "../../../mod.ts";
 *
 * const message: HistoryMessage = { role: "user", text: "earlier question" };
 * console.assert(message.role === "user");
 * ```
 */
export interface HistoryMessage {
  /** `user`, `assistant` or `tool`. */
  readonly role: string;
  /** Its text (tool results: the quoted summary). */
  readonly text: string;
}

/**
 * A host tool the client advertised (an MCP tool definition in RequestContext.tools).
 *
 * @example
 * ```ts
 * import type { AdvertisedTool } from "../../../mod.ts";
 *
 * const tool: AdvertisedTool = { name: "opencode-bash", description: "Run", providerIdentifier: "opencode", toolName: "bash" };
 * console.assert(tool.name === `${tool.providerIdentifier}-${tool.toolName}`);
 * ```
 */
export interface AdvertisedTool {
  /** Model-visible name (`<server>-<tool>` by convention). */
  readonly name: string;
  /** What the tool does. */
  readonly description: string;
  /** The MCP server id. */
  readonly providerIdentifier: string;
  /** The bare tool name on that server. */
  readonly toolName: string;
}

/**
 * The result of a tool call as the model sees it.
 *
 * @example
 * ```ts
 * import type { ScenarioToolResult } from "../../../mod.ts";
 *
 * const result: ScenarioToolResult = { toolCallId: "call_3f2a9c1e_1_0_0", ok: true, summary: "shell `ls` exited 0: a" };
 * console.assert(result.ok);
 * ```
 */
export interface ScenarioToolResult {
  /** The tool call id. */
  readonly toolCallId: string;
  /** Whether the tool succeeded. */
  readonly ok: boolean;
  /** One line the model can quote (e.g. "shell `ls` exited 0: a b"). */
  readonly summary: string;
}

/**
 * What a scenario can see and do.
 *
 * @example
 * ```ts
 * import type { ScenarioContext } from "../../../mod.ts";
 *
 * async function model(context: ScenarioContext): Promise<void> {
 *   const [result] = await context.tools([{ kind: "shell", command: "ls" }]);
 *   await context.text(`Listed: ${result?.summary ?? "nothing"}`);
 * }
 * console.assert(typeof model === "function");
 * ```
 */
export interface ScenarioContext {
  /** The text of this turn's user message. */
  readonly userText: string;
  /** 1-based turn number in the conversation. */
  readonly turn: number;
  /** The conversation before this turn, rebuilt from the client's blobs. */
  readonly history: readonly HistoryMessage[];
  /** The model id and whether it thinks. */
  readonly model: { readonly id: string; readonly thinks: boolean; readonly maxMode: boolean };
  /**
   * The request context the client answered with, as encoded `agent.v1.RequestContext`
   * bytes (decode with `fromBinary(RequestContextSchema, …)` when a test needs it).
   */
  readonly requestContextBytes: Uint8Array;
  /** The workspace root the client reported (first `workspace_paths` entry). */
  readonly workspace: string;
  /** Host tools the client advertised as MCP tools (RequestContext.tools). */
  readonly advertisedTools: readonly AdvertisedTool[];
  /** Skills the client gave (RequestContext.agent_skills): `SKILL.md` path and description. */
  readonly skills: readonly { readonly path: string; readonly description: string }[];
  /** Tool steps already completed in this turn (non-zero on a resumed turn). */
  readonly completedSteps: number;
  /** Results of those steps, in order. */
  readonly previousResults: readonly ScenarioToolResult[];
  /** Streams text (split into deltas of about `chunkChars`). */
  text(text: string, chunkChars?: number): Promise<void>;
  /** Streams each chunk as one text delta. */
  chunks(chunks: Iterable<string>): Promise<void>;
  /** Streams thinking. */
  think(text: string): Promise<void>;
  /** One model step calling these tools in parallel; resolves with their results. */
  tools(specs: readonly ToolSpec[]): Promise<ScenarioToolResult[]>;
  /** Pauses (server heartbeats continue). */
  sleep(ms: number): Promise<void>;
  /**
   * Triggers a fault now. With `limit`, only on the first `times` Runs of this conversation
   * that reach the fault with this `key` (a replay of the same request then runs clean).
   * With `point`, the fault waits for that point of the next tool step.
   */
  fault(
    spec: FaultSpec,
    limit?: { readonly key: string; readonly times: number },
    point?: { readonly at: ToolFaultPoint; readonly delayMs: number },
  ): Promise<void>;
  /**
   * Publishes the next tool step's pre-result checkpoint again at that point: after the
   * exec went out (a late pre-result checkpoint) or while the delivered result drains,
   * before Cursor acknowledges it. `limit` counts firings like {@link fault}'s.
   */
  lateCheckpoint(
    at: "exec" | "tool-result",
    limit?: { readonly key: string; readonly times: number },
  ): Promise<void>;
  /**
   * Records how the model continued a turn in the Run record's variants
   * (`continuation`: `history` when it carried on from a rebuilt history's tool results,
   * `unmatched` when that history did not match the directives and it echoed).
   */
  report(variant: "continuation", value: "history" | "unmatched"): void;
  /**
   * The next tool step saves no settled checkpoint: the output after its results has no
   * checkpoint until the model's next one. `limit` counts firings like {@link fault}'s.
   */
  withholdCheckpoint?(limit?: { readonly key: string; readonly times: number }): Promise<void>;
}

/**
 * A scripted model.
 *
 * @example A scripted model
 * ```ts
 * import { startCursorEmulator, type Scenario } from "../../../mod.ts";
 *
 * const scenario: Scenario = async (context) => {
 *   if (context.turn > 1) await context.text("Welcome back. ");
 *   await context.text(`You said ${context.userText.length} characters.`);
 * };
 * const emulator = await startCursorEmulator({ scenario });
 * await emulator.close();
 * ```
 */
export type Scenario = (context: ScenarioContext) => Promise<void> | void;

const FILLER = "The emulator streams deterministic text so clients can be tested offline. ";

/** `bytes` of filler text in 1 KiB chunks. */
function* fillerChunks(bytes: number): Generator<string> {
  const unit = FILLER.repeat(Math.ceil(1024 / FILLER.length)).slice(0, 1024);
  let left = bytes;
  while (left > 0) {
    const size = Math.min(1024, left);
    yield unit.slice(0, size);
    left -= size;
  }
}

/** `count` small numbered deltas. */
function* numberedChunks(count: number): Generator<string> {
  for (let i = 1; i <= count; i++) yield `d${i} `;
}

/**
 * The default model: runs the directives in the user's text in order, waits for each
 * tool, and ends with a reply quoting every result; without directives it replies with
 * a deterministic echo that also quotes the previous user message. A rebuilt turn (a
 * seeded history ending with the results of the directives' first tool steps) carries on
 * from the first step not done (see `continuation.ts`).
 *
 * @param context The scenario context.
 *
 * @example Wrapping the directive model
 * ```ts
 * import { directiveScenario, type Scenario } from "../../../mod.ts";
 *
 * const scenario: Scenario = async (context) => {
 *   await context.text("[wrapped] ");
 *   await directiveScenario(context);
 * };
 * console.assert(typeof scenario === "function");
 * ```
 */
export async function directiveScenario(context: ScenarioContext): Promise<void> {
  const plan = parseDirectives(context.userText);
  if (plan.length > 0) {
    return await runPlan(context, plan, {
      userText: newestUserText(context.userText).text,
      completedSteps: context.completedSteps,
      results: context.previousResults,
    });
  }
  const rebuilt = readRebuiltTurn(context.userText);
  if (rebuilt.kind !== "none") {
    context.report("continuation", rebuilt.kind === "continue" ? "history" : "unmatched");
  }
  if (rebuilt.kind !== "continue") {
    const schema = requestedSchema(newestUserText(context.userText).text);
    if (schema !== undefined) return await context.text(JSON.stringify(sampleForSchema(schema)));
    return await context.text(echoReply(context));
  }
  await runPlan(context, rebuilt.plan, rebuilt);
}

/** Where a plan starts: its user message, and the tool steps done before this Run. */
interface PlanStart {
  readonly userText: string;
  readonly completedSteps: number;
  readonly results: readonly ScenarioToolResult[];
}

async function runPlan(
  context: ScenarioContext,
  plan: readonly PlanStep[],
  start: PlanStart,
): Promise<void> {
  const results: ScenarioToolResult[] = [...start.results];
  const notes: string[] = [];
  let toolStep = 0;
  for (const [index, step] of plan.entries()) {
    // A continued turn goes on after its completed tool steps: what came before them (their
    // text included) is in the conversation already and is not streamed again.
    if (toolStep < start.completedSteps) {
      if (step.kind === "tools") toolStep++;
      continue;
    }
    // Keyed by the user message alone: a reseed or a rebuild that carries the history
    // before it is the same request.
    const key = `${index}:${start.userText.trim()}`;
    const outcome = await runPlanStep(context, step, key);
    if (Array.isArray(outcome)) results.push(...outcome);
    else if (outcome !== undefined) notes.push(outcome);
  }
  const lines = [
    ...notes,
    ...(results.length === 0
      ? []
      : ["Tool results:", ...results.map((result) => `- ${result.summary}`)]),
  ];
  if (lines.length > 0) await context.text(lines.join("\n"));
}

async function runPlanStep(
  context: ScenarioContext,
  step: PlanStep,
  key: string,
): Promise<ScenarioToolResult[] | string | undefined> {
  switch (step.kind) {
    case "tools":
      return await context.tools(step.tools);
    case "text":
      await context.text(step.text);
      return undefined;
    case "think":
      await context.think(step.text);
      return undefined;
    case "emit":
      await context.chunks(fillerChunks(step.bytes));
      return undefined;
    case "deltas":
      await context.chunks(numberedChunks(step.count));
      return undefined;
    case "sleep":
      await context.sleep(step.ms);
      return undefined;
    case "fault":
      await context.fault(
        step.fault,
        step.times === undefined ? undefined : { key, times: step.times },
        step.point === undefined ? undefined : { at: step.point, delayMs: step.delayMs ?? 0 },
      );
      return undefined;
    case "late-checkpoint":
      await context.lateCheckpoint(
        step.point,
        step.times === undefined ? undefined : { key, times: step.times },
      );
      return undefined;
    case "no-checkpoint":
      await context.withholdCheckpoint?.(
        step.times === undefined ? undefined : { key, times: step.times },
      );
      return undefined;
    case "skills":
      await context.text(skillsList(context));
      return undefined;
    case "skill":
      return await useSkill(context, step.name);
    case "error":
      return step.message;
  }
}

/** What the model says it was given: one line per skill, or that it has none. */
function skillsList(context: ScenarioContext): string {
  if (context.skills.length === 0) return "Skills: none";
  return [
    "Skills:",
    ...context.skills.map((s) => `- ${skillName(s.path)} (${s.path}): ${s.description}`),
  ]
    .join("\n");
}

/** Uses a skill as Cursor's model does: it reads the skill's `SKILL.md` with its read tool. */
async function useSkill(
  context: ScenarioContext,
  name: string,
): Promise<ScenarioToolResult[] | string> {
  const skill = context.skills.find((s) => skillName(s.path) === name);
  if (skill === undefined) {
    const given = context.skills.map((s) => skillName(s.path)).join(", ") || "none";
    return `Skill ${JSON.stringify(name)} was not given (skills: ${given})`;
  }
  return await context.tools([{ kind: "read", path: skill.path }]);
}

/** A skill's name: the folder that holds its `SKILL.md`. */
function skillName(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part !== "");
  return parts.length >= 2 ? parts[parts.length - 2] ?? "" : parts[0] ?? "";
}

/** The reply to a message without directives. */
export function echoReply(context: ScenarioContext): string {
  const previous = [...context.history].reverse().find((message) => message.role === "user");
  const parts = [
    `Emulator reply (turn ${context.turn}). You said: ${clip(context.userText, 200)}.`,
  ];
  if (previous !== undefined) parts.push(`Previously you said: ${clip(previous.text, 200)}.`);
  parts.push(`History holds ${context.history.length} message(s).`);
  return parts.join(" ");
}
