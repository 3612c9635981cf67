/**
 * Pieces of the real-OpenCode recovery tests: what Cursor's model saw (the emulator's
 * record of its context), the Runs the emulator served and the HTTP answers it gave, and
 * a failure report with the server's and the provider's logs.
 *
 * @module
 */
import type { CursorEmulator, RunRecord } from "../../../src/testing/mod.ts";
import type { OpenCodeServer } from "./opencode.ts";
import type { Sandbox } from "./sandbox.ts";

/**
 * The context of the latest model call: one `role: content` line per message after the
 * system prompt, as the emulator's model saw it.
 *
 * @param emulator The emulator.
 * @returns The lines, joined.
 */
export function latestModelContext(emulator: CursorEmulator): string {
  const calls = emulator.runs().at(-1)?.modelCalls ?? [];
  return (calls.at(-1)?.context ?? []).join("\n");
}

/**
 * How many lines of `text` match `pattern`.
 *
 * @param text Lines.
 * @param pattern What a line holds.
 * @returns The count.
 */
export function linesMatching(text: string, pattern: RegExp): number {
  return text.split("\n").filter((line) => pattern.test(line)).length;
}

/**
 * How many times `literal` occurs in `text`.
 *
 * @param text Where to look.
 * @param literal What to count.
 * @returns The count.
 */
export function occurrences(text: string, literal: string): number {
  return text.split(literal).length - 1;
}

/**
 * The Runs the emulator served after the first `skip` ones.
 *
 * @param emulator The emulator.
 * @param skip How many earlier Runs to leave out.
 * @returns The Run records.
 */
export function runsSince(emulator: CursorEmulator, skip: number): RunRecord[] {
  return emulator.runs().slice(skip);
}

/**
 * One line per Run: request id, action, status, the faults that fired and the start of the user's text.
 *
 * @param runs Run records.
 * @returns The lines, joined.
 */
export function describeRuns(runs: readonly RunRecord[]): string {
  return runs.map((run) =>
    `${run.requestId} ${run.action} ${run.status} [${run.faults.join(", ")}] ${
      JSON.stringify(run.userText.slice(0, 50))
    }`
  ).join("\n");
}

/**
 * Every HTTP answer the emulator gave, as `POST <status> <path>`, oldest first.
 *
 * @param emulator The emulator.
 * @returns The lines.
 */
export function httpAnswers(emulator: CursorEmulator): string[] {
  return emulator.log({ direction: "http" }).map((entry) => `${entry.kind} ${entry.rpc}`);
}

/**
 * How many requests to `path` the emulator answered after `time` (emulator clock, ms).
 *
 * @param emulator The emulator.
 * @param path The route, e.g. `/aiserver.v1.BidiService/BidiAppend`.
 * @param time The moment.
 * @returns The count.
 */
export function requestsAfter(emulator: CursorEmulator, path: string, time: number): number {
  return emulator.log({ direction: "http" }).filter((entry) =>
    entry.rpc === path && entry.time > time
  ).length;
}

/**
 * A failure report: the error, the server's error lines and the provider's debug log.
 *
 * @param server The OpenCode server.
 * @param sandbox The sandbox (for the debug log).
 * @param error What failed.
 * @returns The report.
 */
export async function explain(
  server: OpenCodeServer,
  sandbox: Sandbox,
  error: unknown,
): Promise<string> {
  const errors = server.output().split("\n").filter((l) => /ERROR|error/.test(l)).slice(-15);
  const log = (await sandbox.readDebugLog()).split("\n").slice(-40);
  return [JSON.stringify(error), ...errors, "--- debug log ---", ...log].join("\n");
}
