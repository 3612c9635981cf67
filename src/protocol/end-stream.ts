/**
 * The Connect end-of-stream envelope: JSON `{}` on success, or
 * `{"error": {"code", "message", "details": [...]}}`, turned into a typed value.
 * Cursor's `aiserver.v1.ErrorDetails` arrives base64-encoded in `details[].value`
 * (decoded by the caller-supplied decoder so this module stays schema-free), with a
 * JSON `debug` rendering as fallback.
 *
 * @module
 */
import { base64Decode, BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { CursorError, type CursorErrorDetail } from "../core/cursor-error.ts";
import { classifyFailure } from "./classify.ts";
import { rawFieldBytes } from "./raw-field.ts";

/** A decoder for the binary `aiserver.v1.ErrorDetails` detail. */
export type ErrorDetailDecoder = (bytes: Uint8Array) => CursorErrorDetail | undefined;

/** What an end-of-stream envelope said. */
export type EndStream =
  | { readonly ok: true; readonly metadata: Record<string, unknown> }
  | { readonly ok: false; readonly error: CursorError };

/** The largest retry delay honoured from a server hint: 30 s. */
const MAX_RETRY_AFTER_MS = 30_000;

/**
 * Parses an end-of-stream payload.
 *
 * @param payload The envelope's UTF-8 JSON bytes.
 * @param decodeDetail Decoder for binary ErrorDetails.
 * @returns Success with metadata, or the classified error.
 *
 * @example
 * ```ts
 * import { parseEndStream } from "./end-stream.ts";
 *
 * const text = '{"error":{"code":"unavailable","message":"try later"}}';
 * const end = parseEndStream(new TextEncoder().encode(text), () => undefined);
 * console.assert(!end.ok && end.error.retryable);
 * ```
 */
export function parseEndStream(payload: Uint8Array, decodeDetail: ErrorDetailDecoder): EndStream {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload));
  } catch (cause) {
    return {
      ok: false,
      error: new CursorError("protocol", "Cannot parse end-of-stream: payload is not valid JSON", {
        cause,
      }),
    };
  }
  if (!isRecord(json)) {
    return {
      ok: false,
      error: new CursorError(
        "protocol",
        "Cannot parse end-of-stream: payload is not a JSON object",
      ),
    };
  }
  const metadata = isRecord(json.metadata) ? json.metadata : {};
  if (json.error === undefined || json.error === null) return { ok: true, metadata };
  return { ok: false, error: connectErrorFromJson(json.error, decodeDetail) };
}

/**
 * Turns a Connect JSON error object (`{code, message, details}`) into a {@link CursorError},
 * as found in an end-of-stream envelope or in a unary error body.
 *
 * @param value The parsed `error` object.
 * @param decodeDetail Decoder for binary ErrorDetails.
 * @param httpStatus The HTTP status, for a unary error.
 * @returns The classified error.
 */
export function connectErrorFromJson(
  value: unknown,
  decodeDetail: ErrorDetailDecoder,
  httpStatus?: number,
): CursorError {
  if (!isRecord(value)) {
    return new CursorError("protocol", "Cannot parse Connect error: `error` is not an object");
  }
  const connectCode = typeof value.code === "string" ? value.code : undefined;
  const message = typeof value.message === "string" ? value.message : "";
  const details = Array.isArray(value.details) ? value.details : [];
  const detail = firstCursorDetail(details, decodeDetail);
  const retryAfterMs = retryAfter(value, details);
  const classification = classifyFailure({
    ...(connectCode === undefined ? {} : { connectCode }),
    ...(httpStatus === undefined ? {} : { httpStatus }),
    ...(detail === undefined ? {} : { errorDetail: detail.error }),
    ...(detail?.isRetryable === undefined ? {} : { detailRetryable: detail.isRetryable }),
    message: [message, detail?.title, detail?.detail].filter(Boolean).join(" "),
    hasRetryInfo: retryAfterMs !== undefined,
  });
  const shown = describe(connectCode, message, detail);
  return new CursorError(classification.code, shown, {
    retryable: classification.retryable,
    replaySafe: classification.replaySafe,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(connectCode === undefined ? {} : { connectCode }),
    ...(httpStatus === undefined ? {} : { httpStatus }),
    ...(detail === undefined ? {} : { detail }),
  });
}

function describe(
  code: string | undefined,
  message: string,
  detail: CursorErrorDetail | undefined,
): string {
  const parts = [`Cursor answered ${code ?? "an error"}`];
  const text = detail?.title && detail.detail
    ? `${detail.title}: ${detail.detail}`
    : detail?.title ?? detail?.detail;
  if (text) parts.push(text);
  else if (message) parts.push(message);
  return parts.join(": ");
}

function firstCursorDetail(
  details: unknown[],
  decodeDetail: ErrorDetailDecoder,
): CursorErrorDetail | undefined {
  for (const item of details) {
    if (!isRecord(item)) continue;
    const type = typeof item.type === "string" ? item.type : "";
    if (!type.endsWith("ErrorDetails")) continue;
    if (typeof item.value === "string" && item.value.length > 0) {
      try {
        const decoded = decodeDetail(base64Decode(item.value));
        if (decoded) return decoded;
      } catch {
        // fall back to the JSON rendering below
      }
    }
    const fromDebug = detailFromDebug(item.debug);
    if (fromDebug) return fromDebug;
  }
  return undefined;
}

function detailFromDebug(debug: unknown): CursorErrorDetail | undefined {
  if (!isRecord(debug) || typeof debug.error !== "string") return undefined;
  const inner = isRecord(debug.details) ? debug.details : {};
  return {
    error: debug.error,
    ...(typeof inner.title === "string" ? { title: inner.title } : {}),
    ...(typeof inner.detail === "string" ? { detail: inner.detail } : {}),
    ...(typeof inner.isRetryable === "boolean" ? { isRetryable: inner.isRetryable } : {}),
    ...(typeof debug.isExpected === "boolean" ? { isExpected: debug.isExpected } : {}),
  };
}

function retryAfter(error: Record<string, unknown>, details: unknown[]): number | undefined {
  const direct = durationMs(error.retryAfter ?? error.retry_after);
  if (direct !== undefined) return Math.min(direct, MAX_RETRY_AFTER_MS);
  for (const item of details) {
    if (
      !isRecord(item) || typeof item.type !== "string" ||
      !item.type.endsWith("google.rpc.RetryInfo")
    ) continue;
    const fromDebug = isRecord(item.debug) ? durationMs(item.debug.retryDelay) : undefined;
    if (fromDebug !== undefined) return Math.min(fromDebug, MAX_RETRY_AFTER_MS);
    const fromValue = typeof item.value === "string" ? retryInfoDelay(item.value) : undefined;
    return Math.min(fromValue ?? 1000, MAX_RETRY_AFTER_MS);
  }
  return undefined;
}

/** Decodes `google.rpc.RetryInfo{ retry_delay = 1: Duration{ seconds = 1, nanos = 2 } }` from base64. */
function retryInfoDelay(value: string): number | undefined {
  try {
    const duration = rawFieldBytes(base64Decode(value), 1);
    if (duration === undefined) return undefined;
    const reader = new BinaryReader(duration);
    let seconds = 0;
    let nanos = 0;
    while (reader.pos < reader.len) {
      const [number, wireType] = reader.tag();
      if (number === 1 && wireType === WireType.Varint) seconds = Number(reader.int64());
      else if (number === 2 && wireType === WireType.Varint) nanos = reader.int32();
      else reader.skip(wireType, number);
    }
    return seconds * 1000 + Math.floor(nanos / 1e6);
  } catch {
    return undefined;
  }
}

function durationMs(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isFinite(value) && value >= 0) return value * 1000;
  if (typeof value === "string") {
    const match = /^(\d+(?:\.\d+)?)s$/.exec(value.trim());
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  if (isRecord(value)) {
    const seconds = Number(value.seconds ?? 0);
    const nanos = Number(value.nanos ?? 0);
    if (Number.isFinite(seconds) && Number.isFinite(nanos)) {
      return seconds * 1000 + Math.floor(nanos / 1e6);
    }
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
