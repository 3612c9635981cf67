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
  return numericClaimMs(token, "exp");
}

/**
 * The `iat` (issued at) claim of a JWT in milliseconds, or `undefined`.
 *
 * @param token A JWT.
 * @returns Issue time as epoch milliseconds.
 */
export function jwtIssuedAtMs(token: string): number | undefined {
  return numericClaimMs(token, "iat");
}

function numericClaimMs(token: string, claim: "exp" | "iat"): number | undefined {
  const part = token.split(".")[1];
  if (part === undefined) return undefined;
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(base64Decode(part)));
    if (typeof json !== "object" || json === null) return undefined;
    const value = (json as Record<string, unknown>)[claim];
    return typeof value === "number" && Number.isFinite(value) ? value * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether a token should be renewed now: it expires within
 * {@link RENEW_BEFORE_EXPIRY_MS} or its expiry cannot be read. A token that
 * lives shorter than twice the usual margin is renewed at half its life instead, so a
 * short-lived token is not renewed before every request; `fallbackExpiryMs` (for
 * example the `expires` OpenCode stored) serves a token whose expiry cannot be read.
 *
 * @param token The access token.
 * @param nowMs The current time.
 * @param fallbackExpiryMs The expiry to assume when the token has no readable `exp`.
 * @returns `true` when the token should be renewed.
 *
 * @example
 * ```ts
 * import { shouldRenew } from "./jwt.ts";
 *
 * const claims = btoa(JSON.stringify({ iat: 0, exp: 60 })).replace(/=+$/, "");
 * const token = `e30.${claims}.sig`;
 * console.assert(!shouldRenew(token, 10_000));
 * console.assert(shouldRenew(token, 31_000));
 * ```
 */
export function shouldRenew(token: string, nowMs: number, fallbackExpiryMs?: number): boolean {
  const expiry = jwtExpiryMs(token) ?? fallbackExpiryMs;
  if (expiry === undefined) return true;
  const issued = jwtIssuedAtMs(token);
  const margin = issued !== undefined && expiry > issued
    ? Math.min(RENEW_BEFORE_EXPIRY_MS, (expiry - issued) / 2)
    : RENEW_BEFORE_EXPIRY_MS;
  return expiry - nowMs < margin;
}
