/**
 * Connect protocol pieces the emulator answers with: unary error responses, the
 * end-of-stream envelope (success or error with `ErrorDetails` and retry info), and
 * bounded request-body reading.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { base64Encode, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  CustomErrorDetailsSchema,
  ErrorDetails_ErrorSchema,
  ErrorDetailsSchema,
} from "../../../gen/aiserver/v1/error_details_pb.ts";
import { endStreamFrame } from "./envelope.ts";

/**
 * Cursor's `aiserver.v1.ErrorDetails` as an emulated error carries it.
 *
 * @example
 * ```ts
 * import type { ErrorDetail } from "../../mod.ts";
 *
 * const detail: ErrorDetail = { error: "ERROR_RATE_LIMITED", title: "Too many requests", isRetryable: true };
 * console.assert(detail.isRetryable === true);
 * ```
 */
export interface ErrorDetail {
  /** The enum name with its `ERROR_` prefix, e.g. `ERROR_BAD_MODEL_NAME`. */
  readonly error: string;
  /** Short title shown to the user. */
  readonly title?: string;
  /** Longer explanation. */
  readonly detail?: string;
  /** Whether a retry may succeed (`CustomErrorDetails.is_retryable`). */
  readonly isRetryable?: boolean;
  /** Whether the service considers the error expected (`is_expected`). */
  readonly isExpected?: boolean;
}

/**
 * A Connect error the emulator reports (in a unary response or an end-of-stream).
 *
 * @example
 * ```ts
 * import type { EmulatedError } from "../../mod.ts";
 *
 * const error: EmulatedError = { code: "unavailable", message: "Provider error", retryAfterMs: 1000 };
 * console.assert(error.code === "unavailable");
 * ```
 */
export interface EmulatedError {
  /** Connect code name, e.g. `resource_exhausted`. */
  readonly code: string;
  /** The error message. */
  readonly message: string;
  /** Cursor's error detail, carried as `aiserver.v1.ErrorDetails`. */
  readonly detail?: ErrorDetail;
  /** Adds a `google.rpc.RetryInfo` detail with this delay. */
  readonly retryAfterMs?: number;
}

/**
 * The JSON error object: `{code, message, details}`.
 *
 * @param error The error.
 * @returns The object (for a unary body or an end-of-stream `error`).
 */
export function connectErrorJson(error: EmulatedError): Record<string, unknown> {
  const details: Record<string, unknown>[] = [];
  if (error.detail !== undefined) details.push(errorDetailJson(error.detail));
  if (error.retryAfterMs !== undefined) details.push(retryInfoJson(error.retryAfterMs));
  return {
    code: error.code,
    message: error.message,
    ...(details.length > 0 ? { details } : {}),
  };
}

/** The HTTP status of a unary error response per Connect code (Connect protocol spec). */
const HTTP_STATUS: Readonly<Record<string, number>> = {
  canceled: 499,
  unknown: 500,
  invalid_argument: 400,
  deadline_exceeded: 504,
  not_found: 404,
  already_exists: 409,
  permission_denied: 403,
  resource_exhausted: 429,
  failed_precondition: 400,
  aborted: 409,
  out_of_range: 400,
  unimplemented: 501,
  internal: 500,
  unavailable: 503,
  data_loss: 500,
  unauthenticated: 401,
};

/** An `aiserver.v1.ErrorDetails` entry of `error.details[]`: base64 (no padding) plus `debug`. */
function errorDetailJson(detail: ErrorDetail): Record<string, unknown> {
  const error = ErrorDetails_ErrorSchema.values.find((value) => value.name === detail.error);
  const message = create(ErrorDetailsSchema, {
    error: error?.number ?? 0,
    details: create(CustomErrorDetailsSchema, {
      title: detail.title ?? "",
      detail: detail.detail ?? "",
      ...(detail.isRetryable === undefined ? {} : { isRetryable: detail.isRetryable }),
    }),
    ...(detail.isExpected === undefined ? {} : { isExpected: detail.isExpected }),
  });
  return {
    type: "aiserver.v1.ErrorDetails",
    value: base64Encode(toBinary(ErrorDetailsSchema, message), "std_raw"),
    debug: {
      error: detail.error,
      details: {
        title: detail.title ?? "",
        detail: detail.detail ?? "",
        ...(detail.isRetryable === undefined ? {} : { isRetryable: detail.isRetryable }),
      },
      ...(detail.isExpected === undefined ? {} : { isExpected: detail.isExpected }),
    },
  };
}

function retryInfoJson(ms: number): Record<string, unknown> {
  const seconds = Math.floor(ms / 1000);
  const nanos = (ms % 1000) * 1_000_000;
  const duration = new BinaryWriter();
  if (seconds > 0) duration.tag(1, WireType.Varint).int64(seconds);
  if (nanos > 0) duration.tag(2, WireType.Varint).int32(nanos);
  const retryInfo = new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(duration.finish());
  return {
    type: "google.rpc.RetryInfo",
    value: base64Encode(retryInfo.finish(), "std_raw"),
    debug: { retryDelay: `${ms / 1000}s` },
  };
}

/**
 * A unary Connect error response (JSON body, status from the code).
 *
 * @param error The error.
 * @param status Overrides the HTTP status (e.g. 401 for auth).
 * @returns The response.
 */
export function connectErrorResponse(error: EmulatedError, status?: number): Response {
  return new Response(JSON.stringify(connectErrorJson(error)), {
    status: status ?? HTTP_STATUS[error.code] ?? 500,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The end-of-stream envelope: `{}` on success, `{"error": …}` otherwise.
 *
 * @param error The error, or `undefined` for success.
 * @returns The whole envelope (flags 0x02).
 */
export function endStreamEnvelope(error?: EmulatedError): Uint8Array {
  const json = error === undefined ? {} : { error: connectErrorJson(error) };
  return endStreamFrame(json);
}

/** A JSON response. */
export function jsonResponse(status: number, value: unknown): Response {
  return new Response(JSON.stringify(value), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/** Thrown by {@link readBody} when the body exceeds the limit. */
export class BodyTooLargeError extends Error {
  /** @param limit The limit that was exceeded. */
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
    this.name = "BodyTooLargeError";
  }
}

/**
 * Reads a request body, refusing to buffer more than `limit` bytes.
 *
 * @param request The request.
 * @param limit Largest body accepted.
 * @returns The bytes.
 * @throws {BodyTooLargeError} past the limit.
 */
export async function readBody(request: Request, limit: number): Promise<Uint8Array> {
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => {});
      throw new BodyTooLargeError(limit);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

/** The media type of a request, lower-cased, without parameters. */
export function mediaType(request: Request): string {
  return (request.headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Shorthand for an `ErrorDetails` detail. */
export function detail(
  error: string,
  title: string,
  text = "",
  isRetryable?: boolean,
): ErrorDetail {
  return {
    error,
    title,
    ...(text === "" ? {} : { detail: text }),
    ...(isRetryable === undefined ? {} : { isRetryable }),
  };
}

/** The 401 answered for a missing, bad, expired or revoked token. */
export function unauthenticatedError(
  errorName: string,
  message: string,
): EmulatedError {
  return {
    code: "unauthenticated",
    message,
    detail: detail(
      errorName,
      "Authentication error",
      "If you are logged in, try logging out and back in.",
      false,
    ),
  };
}

/** Thrown inside a Run's engine to end the Run with a Connect error. */
export class RunFailure extends Error {
  /** @param error What the end-of-stream reports. */
  constructor(readonly error: EmulatedError) {
    super(`${error.code}: ${error.message}`);
    this.name = "RunFailure";
  }
}
