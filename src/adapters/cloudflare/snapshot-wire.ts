/**
 * The requests between the Durable Object snapshot store (in the app's Worker) and the
 * snapshot Durable Object: plain `fetch` requests to the object's stub, the operation in
 * the path, the bytes in the body, everything else in headers. Every answer names the
 * protocol, so a client bound to another class fails with advice instead of reading
 * foreign bytes as a snapshot.
 *
 * @module
 */

/** The protocol's revision; the header every request and answer carries. */
export const PROTOCOL_HEADER = "cursor-snapshot-protocol";
/** The only revision so far. */
export const PROTOCOL_REVISION = "1";
/** What happened: `found`, `missing`, `refused`, `written`, `conflict`, `removed`, `error`. */
export const RESULT_HEADER = "cursor-snapshot-result";
/** The stored (or newly written) value's version. */
export const VERSION_HEADER = "cursor-snapshot-version";
/** The value's size in bytes, checked by the client against the body it received. */
export const SIZE_HEADER = "cursor-snapshot-size";
/** Why a stored value is refused, or what was wrong with a request. */
export const REASON_HEADER = "cursor-snapshot-reason";
/** A write's condition: `unconditional`, `absent` or `version=<version>`. */
export const CONDITION_HEADER = "cursor-snapshot-condition";
/** A write's lifetime in ms. */
export const TTL_HEADER = "cursor-snapshot-ttl-ms";
/** The object's own bound on one value, on a `too-large` answer. */
export const BOUND_HEADER = "cursor-snapshot-max-bytes";

/** The operations, as request paths. */
export type SnapshotOperation = "read" | "version" | "write" | "remove";

/** Versions the object makes (UUIDs) and accepts back: short, header-safe text. */
const VERSION_PATTERN = /^[A-Za-z0-9-]{1,64}$/;

/**
 * Whether a version received on the wire has the shape the object makes.
 *
 * @param value The header's text.
 * @returns `true` for a well-formed version.
 */
export function isWireVersion(value: string): boolean {
  return VERSION_PATTERN.test(value);
}

/**
 * The condition header for a write's `ifVersion`. A version this protocol never makes
 * can match no stored value, only the absence of one: it is sent as `absent`.
 *
 * @param ifVersion `undefined`: none; `null`: nothing stored; else the expected version.
 * @returns The header's text.
 */
export function conditionHeader(ifVersion: string | null | undefined): string {
  if (ifVersion === undefined) return "unconditional";
  return ifVersion === null || !isWireVersion(ifVersion) ? "absent" : `version=${ifVersion}`;
}

/** A parsed condition header: the write's `ifVersion`, or a malformed header. */
export type ParsedCondition =
  | { readonly ok: true; readonly ifVersion: string | null | undefined }
  | { readonly ok: false };

/**
 * Parses a write's condition header back into an `ifVersion`.
 *
 * @param header The header's text (`null` when absent).
 * @returns The condition, or `ok: false` for a malformed header.
 */
export function parseCondition(header: string | null): ParsedCondition {
  if (header === null || header === "unconditional") return { ok: true, ifVersion: undefined };
  if (header === "absent") return { ok: true, ifVersion: null };
  const version = header.startsWith("version=") ? header.slice("version=".length) : "";
  return isWireVersion(version) ? { ok: true, ifVersion: version } : { ok: false };
}
