/**
 * `::fault <kind> [key=value…]`: the faults a directive triggers mid-reply, parsed into
 * plan steps (see {@link parseFault}). Wire faults (drops, errors, stalls, bad frames)
 * act on the Run's stream; `late-checkpoint` acts in the model: it publishes the next
 * tool step's pre-result checkpoint again after the exec went out (`at=exec`, a late
 * pre-result checkpoint) or while the delivered result drains, before Cursor acknowledges
 * it (`at=tool-result`). Neither may authorise a resume (AGENT-SCHEMA §8.5).
 *
 * @module
 */
import { parseDuration } from "../../directives/directive-language.ts";
import { ERROR_PRESETS } from "../faults/faults.ts";
import type { PlanStep } from "./directive-plan.ts";

/**
 * Parses the argument of `::fault`.
 *
 * @param rest The text after `::fault`.
 * @returns A `fault` or `late-checkpoint` step, or an `error` step saying what was wrong.
 */
export function parseFault(rest: string): PlanStep {
  const [kind = "", ...pairs] = rest.split(/\s+/).filter((part) => part !== "");
  const options = new Map<string, string>();
  for (const pair of pairs) {
    const [key = "", value = "true"] = pair.split("=", 2);
    options.set(key, value);
  }
  const number = (key: string, fallback: number): number => {
    const value = Number(options.get(key) ?? fallback);
    return Number.isFinite(value) ? value : fallback;
  };
  const times = options.has("times") ? { times: Math.max(0, number("times", 1)) } : {};
  const at = options.get("at");
  if (kind === "late-checkpoint") return lateCheckpoint(at, times);
  const step = faultStep(kind, options, number, number("after", 0));
  if (step.kind !== "fault") return step;
  if (at !== undefined && at !== "exec" && at !== "tool-result" && at !== "tool-ack") {
    return {
      kind: "error",
      message: `Directive ::fault at= takes exec, tool-result or tool-ack, got ${
        JSON.stringify(at)
      }`,
    };
  }
  const delay = options.get("delay");
  const delayMs = delay === undefined ? undefined : parseDuration(delay);
  if (delay !== undefined && (delayMs === undefined || at === undefined)) {
    return {
      kind: "error",
      message: `Directive ::fault delay= needs at= and a duration, got ${JSON.stringify(delay)}`,
    };
  }
  return {
    ...step,
    ...times,
    ...(at === undefined ? {} : { point: at }),
    ...(delayMs === undefined ? {} : { delayMs }),
  };
}

function lateCheckpoint(at: string | undefined, times: { times?: number }): PlanStep {
  if (at !== "exec" && at !== "tool-result") {
    return {
      kind: "error",
      message: `Directive ::fault late-checkpoint needs at=exec or at=tool-result, got ${
        JSON.stringify(at ?? "")
      }`,
    };
  }
  return { kind: "late-checkpoint", point: at, ...times };
}

function faultStep(
  kind: string,
  options: ReadonlyMap<string, string>,
  number: (key: string, fallback: number) => number,
  after: number,
): PlanStep {
  const preset = ERROR_PRESETS[kind];
  if (preset !== undefined) return { kind: "fault", fault: { ...preset, afterFrames: after } };
  switch (kind) {
    case "drop":
    case "goaway":
    case "rst-stream":
    case "malformed-frame":
    case "oversized-frame":
      return { kind: "fault", fault: { kind, afterFrames: after } };
    case "stall":
      return {
        kind: "fault",
        fault: {
          kind: "stall",
          ms: number("ms", 1000),
          heartbeats: options.has("heartbeats"),
          afterFrames: after,
        },
      };
    case "error":
      return {
        kind: "fault",
        fault: { kind: "error", code: options.get("code") ?? "internal", afterFrames: after },
      };
    case "unknown-message":
      return {
        kind: "fault",
        fault: { kind: "unknown-message", fieldNumber: number("field", 99), afterFrames: after },
      };
    case "blob-miss":
      return { kind: "fault", fault: { kind: "blob-miss" } };
    default:
      return {
        kind: "error",
        message: `Directive ::fault cannot trigger ${JSON.stringify(kind)} mid-reply`,
      };
  }
}
