/**
 * An HTTP/2 Run that can still move to SSE when the agent host refuses it as a whole before
 * its first frame: HTTP 464, the load balancer's answer to a `Run` that reached it over
 * HTTP/1.1 (a proxy that speaks HTTP/2 to the client and HTTP/1.1 upstream). The refused
 * Run never started, so its client messages, kept until the first frame, are sent again on
 * the new Run. Any other failure, and any failure after the first frame, stays the Run's.
 *
 * @module
 */
import { CursorError } from "../core/cursor-error.ts";
import type { AgentRunStream } from "./agent-transport.ts";
import type { Frame } from "./frame-stream.ts";

/** HTTP 464: the agent host refused the Run as HTTP/1.1 (incompatible protocol). */
const INCOMPATIBLE_PROTOCOL = 464;

/**
 * Whether `error` says the agent host refused the Run as a whole, before running it.
 *
 * @param error A Run's failure.
 * @returns True for HTTP 464.
 */
export function refusedAsHttp1(error: unknown): error is CursorError {
  return error instanceof CursorError && error.httpStatus === INCOMPATIBLE_PROTOCOL;
}

type State =
  | { readonly kind: "unanswered"; readonly sent: Uint8Array[] }
  | { readonly kind: "switching"; readonly sent: Uint8Array[] }
  | { readonly kind: "open"; readonly run: AgentRunStream };

/**
 * Wraps an HTTP/2 Run so that a refusal before its first frame re-opens it with `reopen`.
 *
 * @param http2 The HTTP/2 Run.
 * @param reopen Opens the same Run over another transport (called at most once).
 * @returns The Run as its caller sees it.
 */
export function reopenableRun(
  http2: AgentRunStream,
  reopen: (refusal: CursorError) => Promise<AgentRunStream>,
): AgentRunStream {
  let state: State = { kind: "unanswered", sent: [] };
  let current = http2;
  let queue: Promise<void> = Promise.resolve();
  let closed = false;
  async function* frames(): AsyncGenerator<Frame, void, undefined> {
    let refusal: CursorError;
    try {
      for await (const frame of http2.frames) {
        if (state.kind === "unanswered") state = { kind: "open", run: http2 };
        yield frame;
      }
      return;
    } catch (error) {
      if (state.kind !== "unanswered" || !refusedAsHttp1(error)) throw error;
      refusal = error;
    }
    const sent = state.sent;
    state = { kind: "switching", sent };
    http2.close();
    const next = await reopen(refusal);
    current = next;
    if (closed) next.close();
    // Everything sent so far goes again, in order, before anything sent later.
    queue = queue.catch(() => {}).then(async () => {
      for (const message of sent) await next.send(message);
    });
    state = { kind: "open", run: next };
    yield* next.frames;
  }
  return {
    send(message) {
      if (state.kind === "open") {
        const run = state.run;
        queue = queue.then(() => run.send(message));
        return queue;
      }
      state.sent.push(message);
      if (state.kind === "switching") return Promise.resolve();
      // Before the first frame a failed write is not the caller's: a refused Run is sent
      // again elsewhere, and any other failure ends the frames with its error.
      queue = queue.then(() => http2.send(message)).catch(() => {});
      return queue;
    },
    frames: frames(),
    // A GOAWAY on the HTTP/2 connection (ADR 171); a Run moved to SSE has released it.
    ...(http2.goingAway === undefined ? {} : { goingAway: http2.goingAway }),
    close() {
      closed = true;
      current.close();
    },
  };
}
