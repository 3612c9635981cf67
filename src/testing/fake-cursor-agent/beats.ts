/**
 * The fake's output plan ("beats") and its rendering into concrete steps for the
 * runtime adapter: stdout/stderr writes, pauses, hanging, exiting, crashing. The
 * renderer applies the output format (`stream-json`, `json`, `text`) and the noise
 * modes (CRLF endings, lines split over several writes, two events in one write).
 *
 * @module
 */
import type { JsonObject } from "../../cli/json.ts";

/** One thing the fake does, before rendering. */
export type Beat =
  | { readonly kind: "event"; readonly value: JsonObject }
  | { readonly kind: "raw"; readonly text: string }
  | { readonly kind: "stderr"; readonly text: string }
  | { readonly kind: "sleep"; readonly ms: number }
  | { readonly kind: "hang" }
  | { readonly kind: "background" }
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "crash"; readonly signal: "SIGKILL" | "SIGABRT" };

/** One concrete action of the runtime adapter. */
export type Step =
  | { readonly kind: "stdout"; readonly text: string }
  | { readonly kind: "stderr"; readonly text: string }
  | { readonly kind: "sleep"; readonly ms: number }
  | { readonly kind: "hang" }
  | { readonly kind: "background" }
  | { readonly kind: "exit"; readonly code: number }
  | { readonly kind: "crash"; readonly signal: "SIGKILL" | "SIGABRT" };

/** Rendering options. */
export interface RenderOptions {
  /** `stream-json`, `json` or `text`. */
  readonly format: string;
  /** CRLF endings, split and merged writes. */
  readonly noise: boolean;
  /** Pause between events. */
  readonly eventDelayMs: number;
}

/**
 * Renders beats into steps.
 *
 * @param beats The plan.
 * @param options Format, noise and pacing.
 * @returns The steps, in order.
 */
export function renderBeats(beats: readonly Beat[], options: RenderOptions): Step[] {
  if (options.format !== "stream-json") return renderSummary(beats, options.format);
  const steps: Step[] = [];
  const ending = options.noise ? "\r\n" : "\n";
  let pending: string | undefined;
  let count = 0;
  const flush = () => {
    if (pending !== undefined) steps.push({ kind: "stdout", text: pending });
    pending = undefined;
  };
  for (const beat of beats) {
    if (beat.kind !== "event" && beat.kind !== "raw") {
      flush();
      steps.push(beat);
      continue;
    }
    const line = (beat.kind === "event" ? JSON.stringify(beat.value) : beat.text) + ending;
    if (options.eventDelayMs > 0 && count > 0) {
      flush();
      steps.push({ kind: "sleep", ms: options.eventDelayMs });
    }
    count++;
    if (!options.noise) {
      steps.push({ kind: "stdout", text: line });
    } else if (pending !== undefined) {
      // Two events in one write.
      steps.push({ kind: "stdout", text: pending + line });
      pending = undefined;
    } else if (count % 3 === 0) {
      pending = line;
    } else {
      // One line over several writes, split inside the JSON.
      const cut = Math.max(1, Math.floor(line.length / 2));
      steps.push(
        { kind: "stdout", text: line.slice(0, cut) },
        { kind: "sleep", ms: 2 },
        { kind: "stdout", text: line.slice(cut) },
      );
    }
  }
  flush();
  return steps;
}

/** `json` and `text` formats print only the outcome, and nothing on failure. */
function renderSummary(beats: readonly Beat[], format: string): Step[] {
  const steps: Step[] = [];
  for (const beat of beats) {
    if (beat.kind === "raw") continue;
    if (beat.kind !== "event") {
      steps.push(beat);
      continue;
    }
    if (beat.value["type"] !== "result" || beat.value["is_error"] === true) continue;
    const text = typeof beat.value["result"] === "string" ? beat.value["result"] : "";
    steps.push({
      kind: "stdout",
      text: format === "json" ? `${JSON.stringify(beat.value)}\n` : `${text}\n`,
    });
  }
  return steps;
}
