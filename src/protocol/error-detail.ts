/**
 * Cursor's `aiserver.v1.ErrorDetails`, decoded to the plain {@link CursorErrorDetail}
 * the rest of the library uses, and (the emulator encodes its own).
 *
 * @module
 */
import { fromBinary } from "@bufbuild/protobuf";
import type { CursorErrorDetail } from "../core/cursor-error.ts";
import {
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
 * import { create, toBinary } from "@bufbuild/protobuf";
 * import { ErrorDetails_Error, ErrorDetailsSchema } from "../gen/aiserver/v1/error_details_pb.ts";
 * import { decodeErrorDetail } from "./error-detail.ts";
 *
 * const bytes = toBinary(
 *   ErrorDetailsSchema,
 *   create(ErrorDetailsSchema, { error: ErrorDetails_Error.BAD_MODEL_NAME }),
 * );
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
