/**
 * One line per request for `npm run emulator`: method, RPC path, status and
 * milliseconds (to the end of a streamed body). The emulator's fetch handler is served
 * through {@link loggedHandler}; HTTP/2 bidi Runs, which the emulator serves on its own
 * port, are reported from its Run records by {@link watchHttp2Runs}.
 *
 * @module
 */
import type { CursorEmulator, RunRecord } from "../../src/testing/mod.ts";

/** A finished request. */
export interface RequestLine {
  readonly method: string;
  readonly path: string;
  readonly status: string;
  readonly ms: number;
  /** How a streamed body ended, when it did not simply complete. */
  readonly ending?: string;
}

/** Formats a request line: `POST /agent.v1.AgentService/RunSSE 200 152 ms`. */
export function formatRequestLine(line: RequestLine): string {
  const ending = line.ending === undefined ? "" : ` (${line.ending})`;
  return `${line.method} ${line.path} ${line.status} ${Math.round(line.ms)} ms${ending}`;
}

/**
 * Wraps a fetch handler so each request reports one line when its body has been sent.
 *
 * @param handler The emulator's handler.
 * @param report Receives each finished request.
 * @param now The clock in ms.
 * @returns The logging handler.
 */
export function loggedHandler(
  handler: (request: Request) => Promise<Response>,
  report: (line: RequestLine) => void,
  now: () => number = performance.now.bind(performance),
): (request: Request) => Promise<Response> {
  return async (request) => {
    const started = now();
    const path = new URL(request.url).pathname;
    const done = (status: string, ending?: string) =>
      report({
        method: request.method,
        path,
        status,
        ms: now() - started,
        ...(ending === undefined ? {} : { ending }),
      });
    let response: Response;
    try {
      response = await handler(request);
    } catch (error) {
      done("failed", error instanceof Error ? error.message : String(error));
      throw error;
    }
    const status = String(response.status);
    if (response.body === null) {
      done(status);
      return response;
    }
    const reader = response.body.getReader();
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done: finished, value } = await reader.read();
          if (!finished) return controller.enqueue(value);
          done(status);
          controller.close();
        } catch (error) {
          done(status, "stream failed");
          controller.error(error);
        }
      },
      cancel(reason) {
        done(status, "closed by the client");
        return reader.cancel(reason);
      },
    });
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

/**
 * Reports each HTTP/2 bidi Run once it has ended, polling the emulator's Run records.
 *
 * @param emulator The running emulator.
 * @param report Receives each ended Run.
 * @param intervalMs How often to look.
 * @returns A function that stops watching.
 */
export function watchHttp2Runs(
  emulator: Pick<CursorEmulator, "runs">,
  report: (line: RequestLine) => void,
  intervalMs = 200,
): () => void {
  const reported = new Set<string>();
  const look = () => {
    for (const run of emulator.runs({ transport: "http2" })) {
      if (run.status === "running" || reported.has(run.runId)) continue;
      reported.add(run.runId);
      report(runLine(run));
    }
  };
  const timer = setInterval(look, intervalMs);
  return () => {
    clearInterval(timer);
    look();
  };
}

function runLine(run: RunRecord): RequestLine {
  return {
    method: "POST",
    path: "/agent.v1.AgentService/Run",
    status: run.status === "ok" ? "200" : run.status,
    ms: (run.endedAt ?? run.startedAt) - run.startedAt,
    ending: `HTTP/2, ${run.runId}${run.error ? `, ${run.error.code}` : ""}`,
  };
}
