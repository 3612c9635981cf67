/**
 * The transport-neutral half of the bidi `Run` (HTTP/2): checks the opening request
 * (content type, auth, open-stage faults), then turns the request body's bytes into
 * client messages (envelope framing with a size limit, gzip frames when the client
 * declared `connect-content-encoding: gzip`) for the Run session. The HTTP/2 adapter
 * owns the sockets.
 *
 * @module
 */
import {
  COMPRESSED_FLAG,
  END_STREAM_FLAG,
  FrameReader,
  FramingError,
  inflate,
} from "../wire/envelope.ts";
import { connectErrorResponse, unauthenticatedError } from "../wire/connect-http.ts";
import type { EmulatorCore } from "./emulator-core.ts";
import type { RunSession } from "../run/run-session.ts";
import type { RunSink } from "../io/run-writer.ts";

/** Feeds a bidi Run's request body to its session. */
export interface BidiRunFeeder {
  readonly session: RunSession;
  /** Request body bytes as they arrive. */
  push(chunk: Uint8Array): void;
  /** The client ended its half of the stream. */
  end(): void;
  /** The stream was closed or reset. */
  close(reason: string): void;
}

/** What opening a bidi Run produced. */
export type BidiRunOpen =
  | { readonly kind: "run"; readonly feeder: BidiRunFeeder }
  | { readonly kind: "response"; readonly response: Response }
  | { readonly kind: "empty" };

/**
 * Opens a bidi Run.
 *
 * @param core The emulator.
 * @param headers The request headers.
 * @param sink Where server frames go.
 * @returns The feeder, or a response to send instead (error or fault), or `empty` for a
 *   wrong-region fault (200 and an immediately ended body).
 */
export async function openBidiRun(
  core: EmulatorCore,
  headers: Headers,
  sink: RunSink,
): Promise<BidiRunOpen> {
  const type = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  if (type !== "application/connect+proto") {
    return {
      kind: "response",
      response: connectErrorResponse({
        code: "unknown",
        message: `Unsupported content type ${JSON.stringify(type)}`,
      }, 415),
    };
  }
  const refusal = await core.auth.checkBearer(headers.get("authorization"));
  if (refusal !== undefined) {
    return {
      kind: "response",
      response: connectErrorResponse(unauthenticatedError(refusal.detail, refusal.message), 401),
    };
  }
  const requestId = headers.get("x-request-id") ?? crypto.randomUUID();
  for (const fault of core.faults.take("open", requestId)) {
    if (fault.kind === "http-status") {
      return {
        kind: "response",
        response: new Response(fault.body ?? `Injected HTTP ${fault.status}`, {
          status: fault.status,
        }),
      };
    }
    if (fault.kind === "wrong-region") return { kind: "empty" };
  }
  const session = core.openRun("http2", requestId, sink);
  const gzip = (headers.get("connect-content-encoding") ?? "").toLowerCase() === "gzip";
  return { kind: "run", feeder: createFeeder(core, session, gzip) };
}

function createFeeder(core: EmulatorCore, session: RunSession, gzip: boolean): BidiRunFeeder {
  const limit = core.options.maxMessageBytes;
  const decoder = new FrameReader(limit);
  let chain: Promise<void> = Promise.resolve();
  const failFraming = (cause: unknown) => {
    const message = cause instanceof Error ? cause.message : String(cause);
    const code = cause instanceof FramingError && cause.tooLarge
      ? "resource_exhausted"
      : "invalid_argument";
    session.fail({ code, message });
  };
  return {
    session,
    push(chunk) {
      if (session.finished) return;
      let envelopes;
      try {
        envelopes = decoder.push(chunk);
      } catch (cause) {
        return failFraming(cause);
      }
      for (const envelope of envelopes) {
        if ((envelope.flags & END_STREAM_FLAG) !== 0) {
          return session.fail({
            code: "invalid_argument",
            message: "Client sent an end-of-stream envelope",
          });
        }
        if ((envelope.flags & COMPRESSED_FLAG) === 0) {
          chain = chain.then(() => session.deliver(envelope.payload));
          continue;
        }
        session.variant("compressedFrames", true);
        if (!gzip) {
          return session.fail({
            code: "invalid_argument",
            message: "Compressed frame without connect-content-encoding",
          });
        }
        chain = chain.then(async () => session.deliver(await inflate(envelope.payload, limit)))
          .catch(
            failFraming,
          );
      }
    },
    end() {
      chain = chain.then(() => {
        try {
          decoder.finish();
        } catch (cause) {
          return failFraming(cause);
        }
        session.clientHalfClosed();
      });
    },
    close(reason) {
      session.transportClosed(reason);
    },
  };
}
