/**
 * Access and refresh tokens the emulator issues: JWTs with `exp`, signed HS256 through
 * WebCrypto with a per-emulator random secret, or unsigned (`alg: none`) but well
 * formed.
 *
 * @module
 */
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";

/**
 * How tokens are signed.
 *
 * @example
 * ```ts
 * import type { JwtSigning } from "../../mod.ts";
 *
 * const signing: JwtSigning = "none";
 * console.assert(signing === "none");
 * ```
 */
export type JwtSigning = "hs256" | "none";

/**
 * The claims the emulator puts in its tokens.
 *
 * @example
 * ```ts
 * import { createEmulator, type TokenClaims } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const { refreshToken } = await emulator.auth.issueTokens();
 *   const claims: TokenClaims | undefined = await emulator.auth.checkRefreshToken(refreshToken);
 *   console.assert(claims?.type === "refresh");
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface TokenClaims {
  /** Subject: the emulated user id. */
  readonly sub: string;
  /** Issued at, seconds. */
  readonly iat: number;
  /** Expiry, seconds. */
  readonly exp: number;
  /** `access`, `refresh` or `api_key_token`. */
  readonly type: string;
  /** Unique token id (used for revocation). */
  readonly jti: string;
  /** Issuer: `cursor-emulator`. */
  readonly iss: string;
}

/** Signs and verifies tokens with one secret. */
export interface JwtCodec {
  sign(claims: TokenClaims): Promise<string>;
  /** The claims, or `undefined` when the token is malformed or its signature is wrong. */
  verify(token: string): Promise<TokenClaims | undefined>;
}

const encoder = new TextEncoder();

function encodePart(value: unknown): string {
  return base64Encode(encoder.encode(JSON.stringify(value)), "url");
}

/**
 * Creates a codec. With `hs256` a fresh random 32-byte key is generated.
 *
 * @param signing `hs256` (default) or `none`.
 * @returns The codec.
 */
export async function createJwtCodec(signing: JwtSigning = "hs256"): Promise<JwtCodec> {
  const key = signing === "hs256"
    ? await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256", length: 256 }, false, [
      "sign",
      "verify",
    ])
    : undefined;
  const header = encodePart({ alg: signing === "hs256" ? "HS256" : "none", typ: "JWT" });
  return {
    async sign(claims) {
      const body = `${header}.${encodePart(claims)}`;
      if (key === undefined) return `${body}.`;
      const signature = await crypto.subtle.sign("HMAC", key, encoder.encode(body));
      return `${body}.${base64Encode(new Uint8Array(signature), "url")}`;
    },
    async verify(token) {
      const parts = token.split(".");
      if (parts.length !== 3 || parts[0] !== header) return undefined;
      const [, payload = "", signature = ""] = parts;
      if (key === undefined) {
        if (signature !== "") return undefined;
      } else {
        let bytes: Uint8Array;
        try {
          bytes = base64Decode(signature);
        } catch {
          return undefined;
        }
        const ok = await crypto.subtle.verify(
          "HMAC",
          key,
          bytes as Uint8Array<ArrayBuffer>,
          encoder.encode(`${parts[0]}.${payload}`),
        );
        if (!ok) return undefined;
      }
      return parseClaims(payload);
    },
  };
}

function parseClaims(payload: string): TokenClaims | undefined {
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(base64Decode(payload)));
    if (typeof json !== "object" || json === null) return undefined;
    const record = json as Record<string, unknown>;
    const { sub, iat, exp, type, jti, iss } = record;
    if (
      typeof sub !== "string" || typeof iat !== "number" || typeof exp !== "number" ||
      typeof type !== "string" || typeof jti !== "string" || typeof iss !== "string"
    ) return undefined;
    return { sub, iat, exp, type, jti, iss };
  } catch {
    return undefined;
  }
}
