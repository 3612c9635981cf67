/**
 * A minimal Cursor agent client written from the schema (not the product's transport):
 * opens a Run over RunSSE + BidiAppend (fetch) or the HTTP/2 bidi `Run` (node:http2),
 * sends `AgentClientMessage`s with full control over framing (seqno, hex/binary,
 * compression), and reads `AgentServerMessage` frames with the protocol's frame reader.
 * `host.ts` drives a whole turn on top of it.
 *
 * @module
 */
import http2 from "node:http2";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type AgentClientMessage,
  AgentClientMessageSchema,
} from "../../../src/gen/agent/v1/client_message_pb.ts";
import {
  type AgentServerMessage,
  AgentServerMessageSchema,
} from "../../../src/gen/agent/v1/server_message_pb.ts";
import {
  BidiAppendRequestSchema,
  BidiRequestIdSchema,
} from "../../../src/gen/aiserver/v1/bidi_pb.ts";
import { encodeEnvelope } from "../../../src/protocol/envelope.ts";
import { encodeBidiAppend } from "../../../src/protocol/bidi-append.ts";
import { decodeErrorDetail } from "../../../src/protocol/error-detail.ts";
import type { EndStream } from "../../../src/protocol/end-stream.ts";
import { readFrames } from "../../../src/transport/frame-stream.ts";
import { bytesToHex } from "../../../src/core/bytes.ts";

/** Where and how to connect. */
export interface ClientTarget {
  readonly transport: "sse" | "http2";
  /** Base URL (RunSSE, BidiAppend). */
  readonly url: string;
  /** HTTP/2 URL (Run). */
  readonly http2Url?: string;
  /** Bearer token. */
  readonly token?: string;
  /** CA certificate for https HTTP/2. */
  readonly ca?: string;
}

/** One frame read from a Run. */
export type ClientFrame =
  | { readonly kind: "message"; readonly message: AgentServerMessage; readonly bytes: Uint8Array }
  | { readonly kind: "undecodable"; readonly bytes: Uint8Array }
  | { readonly kind: "end"; readonly end: EndStream }
  | { readonly kind: "closed"; readonly error?: unknown };

/** How to frame one client message. */
export interface SendOptions {
  /** SSE: override the append sequence number. */
  readonly seqno?: number;
  /** SSE: `hex` (default), `binary` (data_binary), `upper` (uppercase hex), `json` codec. */
  readonly encoding?: "hex" | "binary" | "upper" | "json";
}

/** A Run with raw access. */
export interface RawRun {
  readonly requestId: string;
  /** HTTP status of the opening response. */
  readonly status: Promise<number>;
  send(
    message: AgentClientMessage | Uint8Array,
    options?: SendOptions,
  ): Promise<Response | undefined>;
  /** HTTP/2: write raw bytes on the request stream. */
  sendRaw(bytes: Uint8Array): void;
  /** HTTP/2: end the client half of the stream (keep reading). */
  endWrite(): void;
  /** Next frame (or `closed` when the body ended without end-of-stream). */
  next(timeoutMs?: number): Promise<ClientFrame>;
  /** Ends the client half (HTTP/2) and releases the Run. */
  close(): void;
}

/** Builds standard headers. */
export function headers(
  token: string | undefined,
  requestId: string,
  contentType: string,
): Record<string, string> {
  return {
    "content-type": contentType,
    "connect-protocol-version": "1",
    "x-request-id": requestId,
    ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
  };
}

function frameQueue(
  body: ReadableStream<Uint8Array>,
): (timeoutMs?: number) => Promise<ClientFrame> {
  const iterator = readFrames(body, { decodeDetail: decodeErrorDetail, readIdleMs: 30_000 })
    [Symbol.asyncIterator]();
  let finished = false;
  return async (timeoutMs = 5000) => {
    if (finished) return { kind: "closed" };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`No frame within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const step = await Promise.race([iterator.next(), timeout]);
      if (step.done) {
        finished = true;
        return { kind: "closed" };
      }
      if (step.value.kind === "end") {
        finished = true;
        return { kind: "end", end: step.value.end };
      }
      try {
        return {
          kind: "message",
          message: fromBinary(AgentServerMessageSchema, step.value.bytes),
          bytes: step.value.bytes,
        };
      } catch {
        return { kind: "undecodable", bytes: step.value.bytes };
      }
    } catch (error) {
      if (error instanceof Error && error.message.startsWith("No frame within")) throw error;
      finished = true;
      return { kind: "closed", error };
    } finally {
      clearTimeout(timer);
    }
  };
}

function encodeMessage(message: AgentClientMessage | Uint8Array): Uint8Array {
  return message instanceof Uint8Array ? message : toBinary(AgentClientMessageSchema, message);
}

/** Opens a Run over RunSSE + BidiAppend. */
export function openSseRun(target: ClientTarget, requestId: string = crypto.randomUUID()): RawRun {
  const body = encodeEnvelope(
    toBinary(BidiRequestIdSchema, create(BidiRequestIdSchema, { requestId })),
  );
  const abort = new AbortController();
  const response = fetch(`${target.url}/agent.v1.AgentService/RunSSE`, {
    method: "POST",
    headers: headers(target.token, requestId, "application/connect+proto"),
    body: new Uint8Array(body),
    signal: abort.signal,
  });
  response.catch(() => {});
  let seqno = 0;
  let next: ((timeoutMs?: number) => Promise<ClientFrame>) | undefined;
  return {
    requestId,
    status: response.then((r) => r.status, () => 0),
    async send(message, options = {}) {
      const bytes = encodeMessage(message);
      const number = options.seqno ?? seqno++;
      return await postAppend(target, requestId, number, bytes, options.encoding ?? "hex");
    },
    sendRaw() {
      throw new Error("sendRaw is HTTP/2 only");
    },
    endWrite() {
      throw new Error("endWrite is HTTP/2 only");
    },
    async next(timeoutMs) {
      if (next === undefined) {
        const opened = await response.catch((error: unknown) => error);
        if (!(opened instanceof Response) || opened.body === null) {
          return { kind: "closed", error: opened };
        }
        next = frameQueue(opened.body);
      }
      return await next(timeoutMs);
    },
    close() {
      abort.abort();
    },
  };
}

/** Posts one BidiAppend. */
export async function postAppend(
  target: ClientTarget,
  requestId: string,
  seqno: number,
  bytes: Uint8Array,
  encoding: "hex" | "binary" | "upper" | "json",
): Promise<Response> {
  let body: Uint8Array | string;
  let type = "application/proto";
  if (encoding === "binary") {
    body = toBinary(
      BidiAppendRequestSchema,
      create(BidiAppendRequestSchema, {
        requestId: { requestId },
        appendSeqno: BigInt(seqno),
        dataBinary: bytes,
      }),
    );
  } else if (encoding === "json") {
    type = "application/json";
    body = JSON.stringify({
      data: bytesToHex(bytes),
      requestId: { requestId },
      appendSeqno: String(seqno),
    });
  } else {
    body = encodeBidiAppend(requestId, seqno, bytes);
    if (encoding === "upper") {
      const hex = bytesToHex(bytes).toUpperCase();
      body = toBinary(
        BidiAppendRequestSchema,
        create(BidiAppendRequestSchema, {
          data: hex,
          requestId: { requestId },
          appendSeqno: BigInt(seqno),
        }),
      );
    }
  }
  const response = await fetch(`${target.url}/aiserver.v1.BidiService/BidiAppend`, {
    method: "POST",
    headers: headers(target.token, requestId, type),
    body: typeof body === "string" ? body : new Uint8Array(body),
  });
  await response.arrayBuffer();
  return response;
}

/** The response body of an HTTP/2 stream; a stream reset becomes a body error. */
function h2Body(stream: http2.ClientHttp2Stream): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        try {
          if (stream.rstCode !== undefined && stream.rstCode !== 0) {
            controller.error(new Error(`HTTP/2 RST_STREAM code ${stream.rstCode}`));
          } else {
            controller.close();
          }
        } catch {
          // the reader already cancelled the body
        }
      };
      stream.on("data", (chunk: Uint8Array) => {
        try {
          controller.enqueue(new Uint8Array(chunk));
        } catch {
          // the reader already cancelled the body
        }
      });
      stream.on("end", () => setTimeout(finish, 50));
      stream.on("close", finish);
      stream.on("error", (error) => {
        if (done) return;
        done = true;
        try {
          controller.error(error);
        } catch {
          // the reader already cancelled the body
        }
      });
    },
  });
}

/** Opens a Run over the HTTP/2 bidi `Run`. */
export function openHttp2Run(
  target: ClientTarget,
  requestId: string = crypto.randomUUID(),
  extraHeaders: Record<string, string> = {},
): RawRun {
  const url = target.http2Url ?? target.url;
  const session = http2.connect(url, target.ca === undefined ? {} : { ca: target.ca });
  session.on("error", () => {});
  const stream = session.request({
    ":method": "POST",
    ":path": "/agent.v1.AgentService/Run",
    ...headers(target.token, requestId, "application/connect+proto"),
    ...extraHeaders,
  });
  stream.on("error", () => {});
  const status = new Promise<number>((resolve) => {
    stream.on("response", (h) => resolve(Number(h[":status"] ?? 0)));
    stream.on("close", () => resolve(0));
  });
  const next = frameQueue(h2Body(stream));
  return {
    requestId,
    status,
    send(message) {
      if (!stream.closed && !stream.destroyed) stream.write(encodeEnvelope(encodeMessage(message)));
      return Promise.resolve(undefined);
    },
    sendRaw(bytes) {
      if (!stream.closed && !stream.destroyed) stream.write(bytes);
    },
    endWrite() {
      if (!stream.closed) stream.end();
    },
    next,
    close() {
      if (!stream.closed) stream.end();
      session.close();
      setTimeout(() => session.destroy(), 200).unref?.();
    },
  };
}

/** Opens a Run on the target's transport. */
export function openRun(target: ClientTarget, requestId?: string): RawRun {
  return target.transport === "sse"
    ? openSseRun(target, requestId)
    : openHttp2Run(target, requestId);
}
