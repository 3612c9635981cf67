/**
 * `RunSSE` (server-streaming Run; request body = one enveloped `BidiRequestId`) and
 * `BidiAppend` (one unary call per client message, hex or binary, sequenced by
 * `append_seqno`), as web-standard handlers.
 *
 * @module
 */
import { fromBinary, fromJson } from "@bufbuild/protobuf";
import { BidiAppendRequestSchema, BidiRequestIdSchema } from "../../../gen/aiserver/v1/bidi_pb.ts";
import { FrameReader } from "../wire/envelope.ts";
import { hexToBytes } from "../../../core/bytes.ts";
import {
  BodyTooLargeError,
  connectErrorResponse,
  type EmulatedError,
  endStreamEnvelope,
  mediaType,
  readBody,
} from "../wire/connect-http.ts";
import type { EmulatorCore } from "./emulator-core.ts";
import { acceptUnaryRequest, authorize, unaryAnswer } from "./request-preamble.ts";
import type { AppendOutcome } from "./bidi-registry.ts";
import type { RunSink } from "../io/run-writer.ts";
import type { RuleName } from "../observe/violations.ts";

const RUN_SSE_BODY_LIMIT = 64 * 1024;
const STREAM_HEADERS = { "content-type": "application/connect+proto" };

/** A 200 response whose body is only an error end-of-stream (Connect streaming error). */
export function streamError(error: EmulatedError): Response {
  return new Response(new Uint8Array(endStreamEnvelope(error)), {
    status: 200,
    headers: STREAM_HEADERS,
  });
}

/** Handles `POST /agent.v1.AgentService/RunSSE`. */
export async function handleRunSse(core: EmulatorCore, request: Request): Promise<Response> {
  if (mediaType(request) !== "application/connect+proto") {
    return connectErrorResponse({
      code: "unknown",
      message: `Unsupported content type ${JSON.stringify(mediaType(request))}`,
    }, 415);
  }
  const refused = await authorize(core, request);
  if (refused !== undefined) return refused;
  const decoded = await decodeRequestId(request);
  if (typeof decoded !== "string") return streamError(decoded);
  const requestId = decoded;
  for (const fault of core.faults.take("open", requestId)) {
    if (fault.kind === "http-status") {
      return new Response(fault.body ?? `Injected HTTP ${fault.status}`, { status: fault.status });
    }
    if (fault.kind === "wrong-region") {
      return new Response(new Uint8Array(0), { status: 200, headers: STREAM_HEADERS });
    }
  }
  if (core.bidi.isLive(requestId)) {
    return streamError({
      code: "already_exists",
      message: `Run ${JSON.stringify(requestId)} is already streaming`,
    });
  }
  const { stream, sink, onCancel } = streamSink();
  const session = core.openRun("sse", requestId, sink);
  session.variant("requestIdHeaderMatches", request.headers.get("x-request-id") === requestId);
  onCancel(() => session.transportClosed("client closed the RunSSE response"));
  core.bidi.attach(requestId, session);
  return new Response(stream, { status: 200, headers: STREAM_HEADERS });
}

async function decodeRequestId(request: Request): Promise<string | EmulatedError> {
  let body: Uint8Array;
  try {
    body = await readBody(request, RUN_SSE_BODY_LIMIT);
  } catch (cause) {
    if (cause instanceof BodyTooLargeError) {
      return { code: "resource_exhausted", message: `RunSSE request exceeds ${cause.limit} bytes` };
    }
    throw cause;
  }
  const decoder = new FrameReader(RUN_SSE_BODY_LIMIT);
  try {
    const envelopes = decoder.push(body);
    decoder.finish();
    const [first] = envelopes;
    if (envelopes.length !== 1 || first === undefined || first.flags !== 0) {
      return {
        code: "invalid_argument",
        message: `RunSSE request must be one uncompressed envelope, got ${envelopes.length}`,
      };
    }
    const requestId = fromBinary(BidiRequestIdSchema, first.payload).requestId;
    if (requestId === "") {
      return { code: "invalid_argument", message: "RunSSE request has no request_id" };
    }
    return requestId;
  } catch (cause) {
    return {
      code: "invalid_argument",
      message: `Cannot decode RunSSE request: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
    };
  }
}

/** Frames buffered before a writer waits for the reader. */
const SINK_BUFFER = 64;

/**
 * A pull-based ReadableStream sink with backpressure. Frames written before an abort
 * are all delivered first; only then does the body error (a dropped connection).
 */
export function streamSink(): {
  stream: ReadableStream<Uint8Array>;
  sink: RunSink;
  onCancel: (listener: () => void) => void;
} {
  const queue: Uint8Array[] = [];
  let state: "open" | "ended" | "aborted" | "cancelled" = "open";
  const isOpen = () => state === "open";
  let wakeReader: (() => void) | undefined;
  let wakeWriter: (() => void) | undefined;
  let cancelListener: (() => void) | undefined;
  const signalReader = () => {
    wakeReader?.();
    wakeReader = undefined;
  };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      while (queue.length === 0 && state === "open") {
        await new Promise<void>((resolve) => (wakeReader = resolve));
      }
      const next = queue.shift();
      if (next !== undefined) {
        controller.enqueue(next);
        wakeWriter?.();
        wakeWriter = undefined;
      } else if (state === "ended") controller.close();
      else if (state === "aborted") {
        // let the server flush what it already took before the connection drops
        await new Promise((resolve) => setTimeout(resolve, 20));
        controller.error(new Error("Emulator fault: connection dropped"));
      }
    },
    cancel() {
      state = "cancelled";
      queue.length = 0;
      wakeWriter?.();
      cancelListener?.();
    },
  }, { highWaterMark: 0 });
  const sink: RunSink = {
    async write(bytes) {
      if (state !== "open") throw new Error("Stream is closed");
      queue.push(bytes);
      signalReader();
      while (queue.length > SINK_BUFFER && isOpen()) {
        await new Promise<void>((resolve) => (wakeWriter = resolve));
      }
      if (!isOpen() && queue.length === 0) throw new Error("Stream is closed");
    },
    end() {
      if (state === "open") state = "ended";
      signalReader();
    },
    abort() {
      if (state === "open") state = "aborted";
      signalReader();
    },
  };
  return { stream, sink, onCancel: (listener) => (cancelListener = listener) };
}

/** Handles `POST /aiserver.v1.BidiService/BidiAppend`. */
export async function handleBidiAppend(core: EmulatorCore, request: Request): Promise<Response> {
  const accepted = await acceptUnaryRequest(
    core,
    request,
    core.options.maxMessageBytes * 2 + 4096,
    "BidiAppend",
  );
  if (accepted instanceof Response) return accepted;
  const { type, body } = accepted;
  const append = decodeAppend(body, type);
  if ("code" in append) return connectErrorResponse(append);
  const message = appendMessage(core, append.requestId, append.data, append.dataBinary);
  if ("code" in message) return connectErrorResponse(message);
  const encoding = type === "application/json" ? "json" : message.encoding;
  const outcome = core.bidi.append(append.requestId, append.seqno, message.bytes, encoding);
  const refusal = appendRefusal(core, append, outcome);
  if (refusal !== undefined) return refusal;
  return unaryAnswer(type, type === "application/json" ? "{}" : new Uint8Array(0));
}

/** The error response for an append the registry refused, if any (late appends are logged). */
function appendRefusal(
  core: EmulatorCore,
  append: DecodedAppend,
  outcome: AppendOutcome,
): Response | undefined {
  switch (outcome.kind) {
    case "duplicate": {
      const text = `BidiAppend seqno ${outcome.seqno} was already received`;
      const fatal = violate(core, append.requestId, "append-seqno-duplicate", text);
      return fatal ? connectErrorResponse({ code: "invalid_argument", message: text }) : undefined;
    }
    case "ended":
      core.log.add({
        time: core.options.now(),
        runId: undefined,
        direction: "client",
        rpc: "BidiAppend",
        kind: "late_append",
        summary: `seqno ${append.seqno} for ended Run ${append.requestId} (acknowledged, ignored)`,
      });
      return undefined;
    case "overflow":
      return connectErrorResponse({ code: "resource_exhausted", message: outcome.message });
    default:
      return undefined;
  }
}

interface DecodedAppend {
  readonly requestId: string;
  readonly seqno: number;
  readonly data: string;
  readonly dataBinary: Uint8Array;
}

function decodeAppend(body: Uint8Array, type: string): DecodedAppend | EmulatedError {
  let decoded;
  try {
    decoded = type === "application/json"
      ? fromJson(BidiAppendRequestSchema, JSON.parse(new TextDecoder().decode(body)))
      : fromBinary(BidiAppendRequestSchema, body);
  } catch (cause) {
    return {
      code: "invalid_argument",
      message: `Cannot decode BidiAppendRequest: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
    };
  }
  const requestId = decoded.requestId?.requestId ?? "";
  if (requestId === "") {
    return { code: "invalid_argument", message: "BidiAppendRequest has no request_id" };
  }
  if (decoded.appendSeqno < 0n || decoded.appendSeqno > BigInt(Number.MAX_SAFE_INTEGER)) {
    return {
      code: "invalid_argument",
      message: `BidiAppendRequest append_seqno ${decoded.appendSeqno} is out of range`,
    };
  }
  return {
    requestId,
    seqno: Number(decoded.appendSeqno),
    data: decoded.data,
    dataBinary: decoded.dataBinary,
  };
}

function appendMessage(
  core: EmulatorCore,
  requestId: string,
  data: string,
  dataBinary: Uint8Array,
): { bytes: Uint8Array; encoding: "hex" | "binary" } | EmulatedError {
  if (data === "" && dataBinary.length > 0) return { bytes: dataBinary, encoding: "binary" };
  const strict = hexToBytes(data);
  if (strict !== undefined) return { bytes: strict, encoding: "hex" };
  const lenient = hexToBytes(data.toLowerCase());
  const problem = lenient === undefined ? "is not valid hex" : "is not lowercase hex";
  const text = `BidiAppend data ${problem} (starts ${JSON.stringify(data.slice(0, 16))})`;
  const fatal = violate(core, requestId, "append-hex-invalid", text);
  if (lenient === undefined || fatal) return { code: "invalid_argument", message: text };
  return { bytes: lenient, encoding: "hex" };
}

/** Records a violation against the Run with this request id (or the emulator when it has none yet). */
function violate(core: EmulatorCore, requestId: string, rule: RuleName, message: string): boolean {
  const session = core.liveRuns().find((run) =>
    run.record.requestId === requestId && run.record.transport === "sse"
  );
  if (session !== undefined) return session.violation(rule, message);
  return core.violate(rule, message, requestId);
}
