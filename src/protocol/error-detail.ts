/**
 * Cursor's `aiserver.v1.ErrorDetails`, decoded to the plain {@link CursorErrorDetail}
 * the rest of the library uses, and encoded back (for the emulator and tests).
 *
 * @module
 */
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import type { CursorErrorDetail } from "../core/cursor-error.ts";
import {
  CustomErrorDetailsSchema,
  ErrorDetails_ErrorSchema,
  ErrorDetailsSchema,
} from "../gen/aiserver/v1/error_details_pb.ts";

/**
 * Decodes binary `ErrorDetails`.
 *
 * @param bytes The serialized message.
 * @returns The detail with its enum name (`ERROR_…`), or `undefined` if undecodable.
 *
 * @example
 * ```ts
 * import { decodeErrorDetail, encodeErrorDetail } from "./error-detail.ts";
 *
 * const bytes = encodeErrorDetail({ error: "ERROR_BAD_MODEL_NAME", title: "AI Model Not Found" });
 * console.assert(decodeErrorDetail(bytes)?.error === "ERROR_BAD_MODEL_NAME");
 * ```
 */
export function decodeErrorDetail(bytes: Uint8Array): CursorErrorDetail | undefined {
  try {
    const message = fromBinary(ErrorDetailsSchema, bytes);
    const name = ErrorDetails_ErrorSchema.value[message.error]?.name ??
      `ERROR_UNKNOWN_${message.error}`;
    const details = message.details;
    return {
      error: name,
      ...(details?.title ? { title: details.title } : {}),
      ...(details?.detail ? { detail: details.detail } : {}),
      ...(details?.isRetryable === undefined ? {} : { isRetryable: details.isRetryable }),
      ...(message.isExpected === undefined ? {} : { isExpected: message.isExpected }),
    };
  } catch {
    return undefined;
  }
}

/**
 * Encodes a detail as binary `ErrorDetails`.
 *
 * @param detail The detail; `error` must be a known enum name (`ERROR_…`).
 * @returns The serialized message.
 */
export function encodeErrorDetail(detail: CursorErrorDetail): Uint8Array {
  const value = ErrorDetails_ErrorSchema.values.find((v) => v.name === detail.error)?.number ?? 0;
  return toBinary(
    ErrorDetailsSchema,
    create(ErrorDetailsSchema, {
      error: value,
      details: create(CustomErrorDetailsSchema, {
        title: detail.title ?? "",
        detail: detail.detail ?? "",
        ...(detail.isRetryable === undefined ? {} : { isRetryable: detail.isRetryable }),
      }),
      ...(detail.isExpected === undefined ? {} : { isExpected: detail.isExpected }),
    }),
  );
}

/**
 * Builds the JSON `details` entry that carries an `ErrorDetails` in a Connect error,
 * with the base64 value (no padding) and the `debug` rendering.
 *
 * @param detail The detail to carry.
 * @returns The JSON object for `error.details[]`.
 */
export function errorDetailJson(detail: CursorErrorDetail): Record<string, unknown> {
  return {
    type: "aiserver.v1.ErrorDetails",
    value: base64Encode(encodeErrorDetail(detail), "std_raw"),
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
