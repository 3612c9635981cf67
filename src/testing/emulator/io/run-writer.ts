/**
 * The server half of a Run: writes `AgentServerMessage` frames in order to a
 * transport-neutral sink, counts them, applies frame-level faults (drop, stall, error,
 * GOAWAY, RST_STREAM, malformed, oversized, unknown message) and ends the stream with
 * the end-of-stream envelope.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { TextDeltaUpdateSchema } from "../../../gen/agent/v1/interaction_update_pb.ts";
import {
  type AgentServerMessage,
  AgentServerMessageSchema,
} from "../../../gen/agent/v1/server_message_pb.ts";
import { frame } from "../wire/envelope.ts";
import { type EmulatedError, endStreamEnvelope } from "../wire/connect-http.ts";
import { describeServerMessage } from "../observe/describe-message.ts";
import type { FaultSpec } from "../faults/faults.ts";
import type { EmulatorLog } from "../observe/log.ts";

/** How a transport ends a stream abnormally. */
export type AbortKind = "drop" | "goaway" | "goaway-graceful" | "rst-stream";

/** Where a Run's server frames go; implemented by each transport adapter. */
export interface RunSink {
  /** Writes bytes; resolves when the transport can take more (backpressure). */
  write(bytes: Uint8Array): Promise<void>;
  /** Ends the response body normally. */
  end(): void;
  /** Ends it abnormally (SSE treats every kind as a dropped connection). */
  abort(kind: AbortKind): void;
}

/** Thrown inside a Run's engine once its stream is over (fault, cancel, end). */
export class RunTerminated extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "RunTerminated";
  }
}

/** A frame fault waiting for its frame. */
interface ArmedFrameFault {
  readonly spec: FaultSpec;
  readonly atFrame: number;
}

/** Writer settings. */
export interface RunWriterOptions {
  readonly sink: RunSink;
  readonly log: EmulatorLog;
  readonly runId: string;
  readonly rpc: string;
  readonly now: () => number;
  readonly heartbeatIntervalMs: number;
  /** Called with a description of each fault as it fires. */
  readonly onFault: (description: string) => void;
  /** Called with the error an injected `error` fault ends the Run with. */
  readonly onFaultError?: (error: EmulatedError) => void;
}

const OVERSIZED_LENGTH = 16 * 1024 * 1024 + 1;

/** Writes one Run's frames. */
export class RunWriter {
  readonly #options: RunWriterOptions;
  #chain: Promise<void> = Promise.resolve();
  #faults: ArmedFrameFault[] = [];
  #ended: string | undefined;
  #heartbeatQueued = false;
  /** Non-heartbeat frames written. */
  frames = 0;
  /** Heartbeat frames written. */
  heartbeats = 0;
  /** Bytes written. */
  bytes = 0;
  /** Time of the last write. */
  lastWriteAt: number;

  constructor(options: RunWriterOptions) {
    this.#options = options;
    this.lastWriteAt = options.now();
  }

  /** Why the stream ended, once it has. */
  get ended(): string | undefined {
    return this.#ended;
  }

  /** Arms a fault to fire before the frame after `afterFrames` more frames. */
  arm(spec: FaultSpec, afterFrames: number): void {
    this.#faults.push({ spec, atFrame: this.frames + afterFrames });
  }

  /**
   * Sends one message (queued behind earlier writes).
   *
   * @throws {RunTerminated} once the stream has ended.
   */
  send(message: AgentServerMessage): Promise<void> {
    return this.#enqueue(() => this.#write(message, false));
  }

  /** Sends a heartbeat unless the stream is over or one is already queued; never throws. */
  heartbeat(): void {
    if (this.#ended !== undefined || this.#heartbeatQueued) return;
    this.#heartbeatQueued = true;
    const message = create(AgentServerMessageSchema, {
      message: { case: "interactionUpdate", value: { message: { case: "heartbeat", value: {} } } },
    });
    this.#enqueue(() => {
      this.#heartbeatQueued = false;
      return this.#write(message, true);
    }).catch(() => {});
  }

  /** Fires a fault now, behind the writes already queued (a fault between two frames). */
  fireNow(spec: FaultSpec): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#ended !== undefined) return;
      this.#options.onFault(`${spec.kind} at frame ${this.frames}`);
      await this.#fire(spec);
    });
  }

  /** Ends with `{}` or an error end-of-stream (no-op once ended). */
  finish(error?: EmulatedError): Promise<void> {
    return this.#enqueue(async () => {
      if (this.#ended !== undefined) return;
      this.#ended = error === undefined ? "ok" : `error ${error.code}`;
      const bytes = endStreamEnvelope(error);
      this.#logRaw("end_stream", error === undefined ? "{}" : `${error.code}: ${error.message}`);
      try {
        await this.#options.sink.write(bytes);
        this.#options.sink.end();
      } catch {
        // the client went away; nothing more to do
      }
    }).catch(() => {});
  }

  /** Ends abnormally at once (no end-of-stream). */
  abort(kind: AbortKind, reason: string): void {
    if (this.#ended !== undefined) return;
    this.#ended = reason;
    this.#logRaw(`abort.${kind}`, reason);
    this.#options.sink.abort(kind);
  }

  /** Marks the stream over because the client went away (writes nothing). */
  markGone(reason: string): void {
    if (this.#ended === undefined) this.#ended = reason;
  }

  #enqueue(task: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(task);
    this.#chain = next.catch(() => {});
    return next;
  }

  async #write(message: AgentServerMessage, isHeartbeat: boolean): Promise<void> {
    if (this.#ended !== undefined) throw new RunTerminated(`Run already ended (${this.#ended})`);
    if (!isHeartbeat) await this.#fireFaults();
    if (this.#ended !== undefined) throw new RunTerminated(`Run ended by a fault (${this.#ended})`);
    const bytes = frame(toBinary(AgentServerMessageSchema, message));
    if (this.#options.log.enabled) {
      const { kind, summary } = describeServerMessage(message);
      this.#options.log.add({
        time: this.#options.now(),
        runId: this.#options.runId,
        direction: "server",
        rpc: this.#options.rpc,
        kind,
        summary,
        message,
      });
    }
    if (isHeartbeat) this.heartbeats++;
    else this.frames++;
    await this.#put(bytes);
  }

  async #put(bytes: Uint8Array): Promise<void> {
    this.bytes += bytes.length;
    this.lastWriteAt = this.#options.now();
    try {
      await this.#options.sink.write(bytes);
    } catch (cause) {
      this.markGone("transport closed");
      throw new RunTerminated(`Transport closed: ${String(cause)}`);
    }
  }

  async #fireFaults(): Promise<void> {
    const due = this.#faults.filter((fault) => fault.atFrame <= this.frames);
    if (due.length === 0) return;
    this.#faults = this.#faults.filter((fault) => fault.atFrame > this.frames);
    for (const { spec } of due) {
      if (this.#ended !== undefined) return;
      this.#options.onFault(`${spec.kind} at frame ${this.frames}`);
      await this.#fire(spec);
    }
  }

  async #fire(spec: FaultSpec): Promise<void> {
    switch (spec.kind) {
      case "goaway":
        this.abort(spec.graceful === true ? "goaway-graceful" : "goaway", `fault ${spec.kind}`);
        return;
      case "drop":
      case "rst-stream":
        this.abort(spec.kind, `fault ${spec.kind}`);
        return;
      case "error":
        await this.#endWithFault({
          code: spec.code,
          message: spec.message ?? `Injected ${spec.code}`,
          ...(spec.detail === undefined ? {} : { detail: spec.detail }),
          ...(spec.retryAfterMs === undefined ? {} : { retryAfterMs: spec.retryAfterMs }),
        });
        return;
      case "stall":
        await this.#stall(spec.ms, spec.heartbeats ?? false);
        return;
      case "malformed-frame":
        this.#logRaw("malformed_frame", "payload is not protobuf");
        await this.#put(frame(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x0f])));
        return;
      case "oversized-frame":
        await this.#oversized();
        return;
      case "unknown-message":
        await this.#unknownMessage(spec.fieldNumber ?? 99);
        return;
      default:
        return;
    }
  }

  async #endWithFault(error: EmulatedError): Promise<void> {
    this.#ended = `error ${error.code}`;
    this.#options.onFaultError?.(error);
    this.#logRaw("end_stream", `${error.code}: ${error.message}`);
    try {
      await this.#options.sink.write(endStreamEnvelope(error));
      this.#options.sink.end();
    } catch {
      // client gone
    }
  }

  async #stall(ms: number, heartbeats: boolean): Promise<void> {
    const until = this.#options.now() + ms;
    const step = Math.max(10, Math.min(this.#options.heartbeatIntervalMs, ms));
    while (this.#ended === undefined && this.#options.now() < until) {
      await new Promise((resolve) =>
        setTimeout(resolve, Math.min(step, until - this.#options.now()))
      );
      if (heartbeats && this.#ended === undefined && this.#options.now() < until) {
        const message = create(AgentServerMessageSchema, {
          message: {
            case: "interactionUpdate",
            value: { message: { case: "heartbeat", value: {} } },
          },
        });
        this.heartbeats++;
        this.#logRaw("interaction_update.heartbeat", "(stall)");
        await this.#put(frame(toBinary(AgentServerMessageSchema, message)));
      }
    }
  }

  async #oversized(): Promise<void> {
    const header = new Uint8Array(5 + 64);
    new DataView(header.buffer).setUint32(1, OVERSIZED_LENGTH, false);
    this.#logRaw("oversized_frame", `announces ${OVERSIZED_LENGTH} bytes`);
    await this.#put(header);
    this.abort("drop", "fault oversized-frame");
  }

  async #unknownMessage(fieldNumber: number): Promise<void> {
    const message = create(AgentServerMessageSchema);
    const payload = toBinary(
      TextDeltaUpdateSchema,
      create(TextDeltaUpdateSchema, { text: "future" }),
    );
    const data = new BinaryWriter().bytes(payload).finish();
    message.$unknown = [{ no: fieldNumber, wireType: WireType.LengthDelimited, data }];
    this.#logRaw("unknown", `field ${fieldNumber}`);
    this.frames++;
    await this.#put(frame(toBinary(AgentServerMessageSchema, message)));
  }

  #logRaw(kind: string, summary: string): void {
    this.#options.log.add({
      time: this.#options.now(),
      runId: this.#options.runId,
      direction: "server",
      rpc: this.#options.rpc,
      kind,
      summary,
    });
  }
}
