/**
 * The one interface both transports implement: open a held agent Run, send client
 * messages in order, read server frames. Byte-oriented: encoding and decoding of
 * `agent.v1` messages belongs to the session layer.
 *
 * @module
 */
import type { Frame } from "./frame-stream.ts";

/** Everything needed to open a Run. */
export interface OpenRunOptions {
  /** The agent origin, e.g. `https://agentn.us.api5.cursor.sh`. */
  readonly agentBaseURL: string;
  /** Headers for this Run (auth, checksum, client version …); the transport adds content types. */
  readonly headers: Record<string, string>;
  /** The Run's correlation id: the `x-request-id` header and the RunSSE/BidiAppend request id. */
  readonly requestId: string;
  /** Aborts the Run and releases everything. */
  readonly signal?: AbortSignal;
  /**
   * Where later requests of the Run get their access token. The token in `headers`
   * authorizes the opening request; without `credentials` it is used for the whole Run.
   */
  readonly credentials?: RunCredentials | undefined;
}

/** Access tokens for a held Run, which can outlive the token it opened with. */
export interface RunCredentials {
  /** A currently valid token (the source renews it before expiry); asked before every request. */
  current(signal?: AbortSignal): Promise<string>;
  /**
   * Cursor refused `token`: a token to retry with, renewed at most once per refused token.
   * Absent when the credentials cannot be renewed.
   */
  rejected?(token: string, signal?: AbortSignal): Promise<string>;
}

/** A live Run. */
export interface AgentRunStream {
  /**
   * Sends one encoded `AgentClientMessage`. Sends are delivered in call order.
   *
   * @throws {CursorError} when the transport can no longer deliver (the Run is over).
   */
  send(message: Uint8Array): Promise<void>;
  /** Server frames in order; ends after the end-of-stream frame or when the body ends. */
  readonly frames: AsyncIterable<Frame>;
  /**
   * Settles when the server announced it will close the Run's connection (an HTTP/2
   * GOAWAY, as a server draining for a deploy sends). Absent where the transport cannot
   * tell (SSE).
   */
  readonly goingAway?: Promise<void>;
  /** Ends the client half and releases the Run (idempotent). */
  close(): void;
}

/** Opens Runs. */
export interface AgentTransport {
  /** Which transport this is, for logs. */
  readonly kind: "sse" | "http2";
  /**
   * Opens a Run. Resolves once the request is under way (not when the server answers).
   *
   * @throws {CursorError} when the Run cannot be opened.
   */
  openRun(options: OpenRunOptions): Promise<AgentRunStream>;
}
