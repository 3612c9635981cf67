/**
 * Reading a JWT's expiry (no signature check: the token is only ours to present).
 *
 * @module
 */
import { base64Decode } from "@bufbuild/protobuf/wire";

/** Renew tokens that expire within this many milliseconds: 5 minutes. */
export const RENEW_BEFORE_EXPIRY_MS = 5 * 60 * 1000;

/**
 * The `exp` claim of a JWT in milliseconds, or `undefined` when the token has none or
 * is not a JWT.
 *
 * @param token A JWT.
 * @returns Expiry as epoch milliseconds.
 *
 * @example
 * ```ts
 * import { jwtExpiryMs } from "./jwt.ts";
 *
 * const payload = btoa(JSON.stringify({ exp: 100 })).replace(/=+$/, "");
 * console.assert(jwtExpiryMs(`e30.${payload}.sig`) === 100_000);
 * ```
 */
export function jwtExpiryMs(token: string): number | undefined {
  const part = token.split(".")[1];
  if (part === undefined) return undefined;
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(base64Decode(part)));
    if (typeof json !== "object" || json === null) return undefined;
    const exp = (json as { exp?: unknown }).exp;
    return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a token should be renewed now: it expires within
 * {@link RENEW_BEFORE_EXPIRY_MS}, or its expiry cannot be read.
 *
 * @param token A JWT.
 * @param nowMs The current time.
 * @returns `true` when the token should be renewed.
 */
export function isExpiringSoon(token: string, nowMs: number): boolean {
  const expiry = jwtExpiryMs(token);
  return expiry === undefined || expiry - nowMs < RENEW_BEFORE_EXPIRY_MS;
}
