/**
 * Reads the emulator's Run records of one `scale-out.bench.ts` variant: what Cursor's
 * context held at the end of every turn the app saw complete, which requests continued a
 * checkpoint and which were reseeded cold, and how often each tool step was issued.
 *
 * - **lost**: a turn the app saw complete that no Run finished, or after which Cursor's
 *   context lacks one of the conversation's completed user messages or tool results (a
 *   turn continued on a wrong checkpoint).
 * - **duplicated**: a turn whose tool step was answered under two tool call ids (the model
 *   called the tool again and got a result again) or run twice by the app, or after which Cursor's context holds
 *   a user message or a tool result twice.
 * - **warm**: of the requests after each conversation's first, those that continued
 *   Cursor's checkpoint (a supplied checkpoint, or the tool result answered on the Run that
 *   asked for it) rather than a cold reseed from the host's history.
 *
 * @module
 */
import type { ClientConversation } from "./client.ts";
import { hasTool } from "./client.ts";

/** The part of the emulator's `RunRecord` read here. */
interface Run {
  runId: string;
  continuity: "warm" | "cold";
  checkpointSupplied: boolean;
  action: string;
  userText: string;
  status: string;
  turnEnded: boolean;
  execs: { requestCase: string; toolCallId: string; resultCase?: string }[];
  modelCalls: { context: string[] }[];
}

/** One variant's figures and its printable line. */
export interface Figures {
  readonly lost: number;
  /** Turns that failed with an error the app could not retry. */
  readonly fatal: number;
  readonly duplicated: number;
  readonly warmPercent: number;
  readonly bytesPerLaterTurn: number;
  readonly line: string;
}

const MARKER = /@@c(\d+)\.t(\d+)@@/g;
const RESULT = /record k(\d+)-(\d+) is fine/g;
const SEED = "<conversation_so_far>";

/** The user texts and tool results of a context, in order (reseeded blocks opened). */
function contextItems(context: readonly string[]): { users: string[]; tools: string[] } {
  const users: string[] = [];
  const tools: string[] = [];
  for (const line of context) {
    const role = line.slice(0, line.indexOf(":"));
    let parts: { type: string; text?: string; result?: unknown }[] = [];
    try {
      parts = JSON.parse(line.slice(role.length + 1));
    } catch {
      continue;
    }
    for (const part of parts) {
      if (role === "tool" && part.type === "tool-result") tools.push(JSON.stringify(part.result));
      if (role !== "user" || typeof part.text !== "string") continue;
      const text = part.text;
      const end = text.indexOf("</conversation_so_far>");
      if (!text.includes(SEED) || end < 0) {
        users.push(text);
        continue;
      }
      const block = text.slice(text.indexOf(SEED), end);
      for (const match of block.matchAll(/<(user|tool)[^>]*>\n([\s\S]*?)\n<\/\1>/g)) {
        (match[1] === "user" ? users : tools).push(match[2] ?? "");
      }
      users.push(text.slice(end));
    }
  }
  return { users, tools };
}

/** `c.t` keys found by `pattern` in `texts`, in order. */
function keys(texts: readonly string[], pattern: RegExp): string[] {
  return texts.flatMap((text) => [...text.matchAll(pattern)].map((m) => `${m[1]}.${m[2]}`));
}

/** The conversation and turn a Run served: the newest marker it was sent. */
function turnOf(run: Run): string | undefined {
  const own = keys([run.userText], MARKER).at(-1);
  if (own !== undefined) return own;
  const context = run.modelCalls.at(-1)?.context ?? [];
  return keys(contextItems(context).users, MARKER).at(-1);
}

const runNumber = (run: Run) => Number(run.runId.replace(/\D/g, ""));
const reseeded = (run: Run) => run.userText.includes(SEED);
const continued = (run: Run | undefined) =>
  run !== undefined && run.checkpointSupplied && run.continuity === "warm" && !reseeded(run);

interface Tally {
  lost: number;
  duplicated: number;
  warm: number;
  cold: number;
  /** What was wrong with each lost or duplicated turn (`c3 t2: …`). */
  problems: string[];
}

/** What is wrong with Cursor's context after a turn: missing, repeated or foreign entries. */
function contextProblems(c: number, done: readonly number[], context: readonly string[]) {
  const items = contextItems(context);
  const users = keys(items.users, MARKER);
  const results = keys(items.tools, RESULT);
  const missing: string[] = [];
  const twice: string[] = [];
  const own = users.filter((key) => key.startsWith(`${c}.`));
  if (own.length !== users.length) missing.push(`foreign messages ${users.join(",")}`);
  const expected = done.map((t) => `${c}.${t}`);
  for (const key of expected) {
    const seen = own.filter((k) => k === key).length;
    if (seen === 0) missing.push(`message ${key}`);
    if (seen > 1) twice.push(`message ${key} x${seen}`);
  }
  if (missing.length === 0 && twice.length === 0 && own.join() !== expected.join()) {
    missing.push(`order ${own.join(",")}`);
  }
  for (const t of done.filter(hasTool)) {
    const seen = results.filter((k) => k === `${c}.${t}`).length;
    if (seen === 0) missing.push(`tool result ${c}.${t}`);
    if (seen > 1) twice.push(`tool result ${c}.${t} x${seen}`);
  }
  return { missing, twice };
}

/** Checks one completed turn of one conversation against its Runs. */
function checkTurn(conversation: ClientConversation, turn: number, runs: Run[], tally: Tally) {
  const c = conversation.index;
  const last = runs.filter((run) => run.status === "ok" && run.turnEnded).at(-1);
  const done = conversation.completed.filter((t) => t <= turn);
  const { missing, twice } = last === undefined
    ? { missing: ["no Run finished it"], twice: [] }
    : contextProblems(c, done, last.modelCalls.at(-1)?.context ?? []);
  if (hasTool(turn)) {
    // A call the app never answered (its instance died first) ran nothing; a call re-issued on
    // resume keeps its id.
    const ids = new Set(
      runs.flatMap((run) => run.execs)
        .filter((e) => e.requestCase === "mcpArgs" && e.resultCase !== undefined)
        .map((e) => e.toolCallId),
    );
    if (ids.size > 1) twice.push(`tool answered under ${ids.size} call ids`);
    const ran = conversation.toolRuns.get(`k${c}-${turn}`) ?? 0;
    if (ran > 1) twice.push(`tool run ${ran} times by the app`);
  }
  const where = `c${c} t${turn} (${last?.runId ?? "no run"})`;
  if (missing.length > 0) {
    tally.lost++;
    tally.problems.push(`lost ${where}: ${missing.join("; ")}`);
  }
  if (twice.length > 0) {
    tally.duplicated++;
    tally.problems.push(`duplicated ${where}: ${twice.join("; ")}`);
  }
  countLegs(turn, runs, tally);
}

/** Counts the requests of one turn that continued a checkpoint and those reseeded cold. */
function countLegs(turn: number, runs: Run[], tally: Tally) {
  const count = (warm: boolean) => warm ? tally.warm++ : tally.cold++;
  if (turn > 1) count(continued(runs[0]));
  if (!hasTool(turn)) return;
  const asking = runs.findIndex((run) => run.execs.some((e) => e.requestCase === "mcpArgs"));
  const exec = runs[asking]?.execs.find((e) => e.requestCase === "mcpArgs");
  if (exec?.resultCase !== undefined) return count(true);
  count(continued(runs[asking + 1]));
}

/**
 * Analyses one variant.
 *
 * @param conversations What the app saw.
 * @param records The emulator's dump (`runs`, `violations`).
 * @param run The turns per conversation, the bytes uploaded after the first turns, the chaos events.
 * @returns The figures.
 */
export function analyse(
  conversations: readonly ClientConversation[],
  records: { runs: unknown[]; violations: unknown[] },
  run: { turns: number; bytesLater: number; chaosEvents: number },
): Figures {
  const byTurn = new Map<string, Run[]>();
  for (const record of (records.runs as Run[]).sort((a, b) => runNumber(a) - runNumber(b))) {
    const key = turnOf(record);
    if (key !== undefined) byTurn.set(key, [...(byTurn.get(key) ?? []), record]);
  }
  const tally: Tally = { lost: 0, duplicated: 0, warm: 0, cold: 0, problems: [] };
  for (const conversation of conversations) {
    for (const turn of conversation.completed) {
      checkTurn(conversation, turn, byTurn.get(`${conversation.index}.${turn}`) ?? [], tally);
    }
  }
  const legs = tally.warm + tally.cold;
  const warmPercent = legs === 0 ? 0 : (100 * tally.warm) / legs;
  const completed = conversations.reduce((sum, c) => sum + c.completed.length, 0);
  const failures = conversations.flatMap((c) => c.failed.map((f) => ({ ...f, c: c.index })));
  const fatal = failures.filter((f) => !f.retryable).length;
  const retries = conversations.reduce((sum, c) => sum + c.retries, 0);
  const laterTurns = conversations.length * Math.max(1, run.turns - 1);
  const bytesPerLaterTurn = run.bytesLater / laterTurns;
  const line = `completed=${completed} failed_retryable=${failures.length - fatal} ` +
    `failed_not_retryable=${fatal} retries=${retries} ` +
    `chaos_events=${run.chaosEvents} lost=${tally.lost} duplicated=${tally.duplicated} ` +
    `warm_requests=${tally.warm} cold_requests=${tally.cold} warm=${warmPercent.toFixed(1)}% ` +
    `bytes_per_later_turn=${bytesPerLaterTurn.toFixed(0)} runs=${records.runs.length} ` +
    `violations=${records.violations.length}`;
  for (const problem of tally.problems.slice(0, 5)) console.log(`scale-out: ${problem}`);
  for (const f of failures.slice(0, 5)) {
    console.log(
      `scale-out: failed c${f.c} turn ${f.turn}: ${f.error.replace(/\s+/g, " ").slice(0, 200)}`,
    );
  }
  return {
    lost: tally.lost,
    fatal,
    duplicated: tally.duplicated,
    warmPercent,
    bytesPerLaterTurn,
    line,
  };
}
