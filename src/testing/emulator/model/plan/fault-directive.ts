/**
 * `::fault <kind> [key=value…]`: the faults a directive triggers mid-reply, parsed into
 * plan steps (see {@link parseFault}). Wire faults (drops, errors, stalls, bad frames)
 * act on the Run's stream; `late-checkpoint` acts in the model: it publishes the next
 * tool step's pre-result checkpoint again after the exec went out (`at=exec`, a late
 * pre-result checkpoint) or while the delivered result drains, before Cursor acknowledges
 * it (`at=tool-result`). Neither may authorise a resume (AGENT-SCHEMA §8.5).
 * `no-checkpoint` also acts in the model: the next tool step saves no settled checkpoint,
 * so the output after the tool results has none to resume from.
 *
 * @module
 */
import { parseDuration } from "../../../directives/directive-language.ts";
import { ERROR_PRESETS, type FaultSpec } from "../../faults/faults.ts";

/**
 * Points inside a tool step where a deferred fault fires: `exec` once the exec request went
 * out (the client runs the tool); `tool-result` once the client's result arrived, before
 * Cursor acknowledges it (the result drains); `tool-ack` right after the
 * `tool_call_completed` acknowledgement, before the settled checkpoint.
 *
 * @example
 * ```ts
 * import { parseDirectives, type ToolFaultPoint } from "../../../mod.ts";
 *
 * const point: ToolFaultPoint = "tool-result";
 * const [step] = parseDirectives(`::fault drop times=1 at=${point}`);
 * console.assert(step?.kind === "fault" && step.point === "tool-result");
 * ```
 */
export type ToolFaultPoint = "exec" | "tool-result" | "tool-ack";

/** The plan steps `::fault` makes: a fault, a late checkpoint, or what was wrong. */
export type FaultStep =
  | {
    readonly kind: "fault";
    readonly fault: FaultSpec;
    /** Fire only on the first N Runs that carry this directive (`times=N`); default every Run. */
    readonly times?: number;
    /** Fire later, at this point of the next tool step (`at=exec|tool-result|tool-ack`). */
    readonly point?: ToolFaultPoint;
    /** With `point`: fire this long after the point is reached (`delay=<duration>`). */
    readonly delayMs?: number;
  }
  | {
    readonly kind: "late-checkpoint";
    /** Publish the next tool step's pre-result checkpoint again at this point. */
    readonly point: "exec" | "tool-result";
    /** Only on the first N Runs that carry this directive (`times=N`); default every Run. */
    readonly times?: number;
  }
  | {
    /** The next tool step saves no settled checkpoint (the next one comes after more output). */
    readonly kind: "no-checkpoint";
    /** Only on the first N Runs that carry this directive (`times=N`); default every Run. */
    readonly times?: number;
  }
  | { readonly kind: "error"; readonly message: string };

/**
 * Parses the argument of `::fault`.
 *
 * @param rest The text after `::fault`.
 * @returns A `fault` or `late-checkpoint` step, or an `error` step saying what was wrong.
 */
export function parseFault(rest: string): FaultStep {
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
  if (kind === "no-checkpoint") return { kind: "no-checkpoint", ...times };
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

function lateCheckpoint(at: string | undefined, times: { times?: number }): FaultStep {
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
): FaultStep {
  const preset = ERROR_PRESETS[kind];
  if (preset !== undefined) return { kind: "fault", fault: { ...preset, afterFrames: after } };
  switch (kind) {
    case "goaway":
      return {
        kind: "fault",
        fault: { kind, afterFrames: after, ...(options.has("graceful") ? { graceful: true } : {}) },
      };
    case "drop":
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
