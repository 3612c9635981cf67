/**
 * The header sets Cursor's RPCs expect, built from injected values (no clocks,
 * environment or random sources are read here).
 *
 * @module
 */
import { cursorChecksum } from "./checksum.ts";

/** The client version sent when nothing better is known. */
export const FALLBACK_CLIENT_VERSION = "cli-2026.08.11-e8db854";

const CLIENT_VERSION_PATTERN = /^cli-[0-9A-Za-z][0-9A-Za-z._-]*$/;

/**
 * Picks the `x-cursor-client-version`: an explicit value when it is well formed,
 * else a cached one when well formed, else {@link FALLBACK_CLIENT_VERSION}.
 *
 * @param explicit A version from configuration or `CURSOR_CLIENT_VERSION`.
 * @param cached A version remembered from an earlier discovery.
 * @returns A `cli-…` version string.
 *
 * @example
 * ```ts
 * import { resolveClientVersion, FALLBACK_CLIENT_VERSION } from "./headers.ts";
 *
 * console.assert(resolveClientVersion("cli-2026.09.02-fa0c06e") === "cli-2026.09.02-fa0c06e");
 * console.assert(resolveClientVersion("bad version") === FALLBACK_CLIENT_VERSION);
 * ```
 */
export function resolveClientVersion(explicit?: string, cached?: string): string {
  for (const candidate of [explicit, cached]) {
    const trimmed = candidate?.trim();
    if (trimmed && CLIENT_VERSION_PATTERN.test(trimmed)) return trimmed;
  }
  return FALLBACK_CLIENT_VERSION;
}

/**
 * Whether a client version string has the `cli-…` form Cursor accepts.
 *
 * @param version The version to check.
 * @returns `true` for the accepted form.
 *
 * @example
 * ```ts
 * import { isValidClientVersion } from "./headers.ts";
 *
 * console.assert(isValidClientVersion("cli-2026.09.02-fa0c06e"));
 * console.assert(!isValidClientVersion("bad version"));
 * ```
 */
export function isValidClientVersion(version: string): boolean {
  return CLIENT_VERSION_PATTERN.test(version);
}

/** The values the base header set is built from. */
export interface BaseHeaderInput {
  /** The access token (a JWT); never a `crsr_` key. */
  readonly accessToken: string;
  /** A `cli-…` client version. */
  readonly clientVersion: string;
  /** A fresh id for this HTTP request (UUID v4). */
  readonly requestId: string;
  /** The current time, for the checksum. */
  readonly nowMs: number;
  /** The 64-hex machine id, for the checksum. */
  readonly machineId: string;
  /** The optional 64-hex MAC-derived id. */
  readonly macMachineId?: string;
  /** Privacy mode; defaults to true as the official CLI does when unknown. */
  readonly ghostMode?: boolean;
}

/**
 * The header set sent on every Cursor RPC.
 *
 * @param input Token, version, request id, clock and machine ids.
 * @returns Lowercase header names and values.
 *
 * @example
 * ```ts
 * import { baseHeaders } from "./headers.ts";
 *
 * const headers = baseHeaders({
 *   accessToken: "token",
 *   clientVersion: "cli-2026.08.11-e8db854",
 *   requestId: "00000000-0000-4000-8000-000000000000",
 *   nowMs: Date.UTC(2026, 0, 1),
 *   machineId: "a".repeat(64),
 * });
 * console.assert(headers["authorization"] === "Bearer token");
 * console.assert(headers["x-cursor-checksum"]?.startsWith("Umxud4TC"));
 * ```
 */
export function baseHeaders(input: BaseHeaderInput): Record<string, string> {
  return {
    "authorization": `Bearer ${input.accessToken}`,
    "connect-protocol-version": "1",
    "x-cursor-client-type": "cli",
    "x-cursor-client-version": input.clientVersion,
    "x-cursor-checksum": cursorChecksum(input.nowMs, input.machineId, input.macMachineId),
    "x-ghost-mode": String(input.ghostMode ?? true),
    "x-request-id": input.requestId,
  };
}

/**
 * What a streaming call (`Run`, `RunSSE`) sends beyond the base set: Connect's protocol
 * version, the streaming content type, gzip acceptance and `x-cursor-streaming`.
 */
export const STREAMING_CALL_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "connect-protocol-version": "1",
  "content-type": "application/connect+proto",
  "connect-accept-encoding": "gzip",
  "x-cursor-streaming": "true",
});

/**
 * Headers for a streaming call (`Run`, `RunSSE`): the base set plus the
 * streaming content type, gzip acceptance and `x-cursor-streaming`.
 *
 * @param input As for {@link baseHeaders}.
 * @returns Lowercase header names and values.
 */
export function streamingHeaders(input: BaseHeaderInput): Record<string, string> {
  return { ...baseHeaders(input), ...STREAMING_CALL_HEADERS };
}

/**
 * Headers for a unary binary call (`BidiAppend`, binary `AvailableModels`).
 *
 * @param input As for {@link baseHeaders}.
 * @returns Lowercase header names and values.
 */
export function unaryProtoHeaders(input: BaseHeaderInput): Record<string, string> {
  return { ...baseHeaders(input), "content-type": "application/proto" };
}

/**
 * Headers for a unary JSON call (`GetServerConfig`, JSON `AvailableModels`).
 *
 * @param input As for {@link baseHeaders}.
 * @returns Lowercase header names and values.
 */
export function unaryJsonHeaders(input: BaseHeaderInput): Record<string, string> {
  return {
    ...baseHeaders(input),
    "content-type": "application/json",
    "accept": "application/json",
  };
}
