/**
 * Emulated accounts: browser logins (PKCE + polling), API keys, JWT access and refresh
 * tokens with expiry, revocation, and the record of which refresh variant a client used.
 *
 * @module
 */
import { base64Encode } from "@bufbuild/protobuf/wire";
import { sha256 } from "../../../core/bytes.ts";
import { createJwtCodec, type JwtCodec, type JwtSigning, type TokenClaims } from "./jwt.ts";

/**
 * Auth settings of an emulator.
 *
 * @example
 * ```ts
 * import type { AuthOptions } from "../../mod.ts";
 *
 * const auth: AuthOptions = { accessTokenLifetimeMs: 60_000, autoApproveAfterPolls: false, signing: "none" };
 * console.assert(auth.signing === "none");
 * ```
 */
export interface AuthOptions {
  /** Check bearer tokens on every RPC (default `true`). */
  readonly required?: boolean;
  /** `hs256` (default) or `none` (unsigned but well-formed JWTs). */
  readonly signing?: JwtSigning;
  /** Access token lifetime (default 1 hour). */
  readonly accessTokenLifetimeMs?: number;
  /** Refresh token lifetime (default 60 days). */
  readonly refreshTokenLifetimeMs?: number;
  /** Accepted `crsr_` keys; default: any `crsr_` key with at least 8 more characters. */
  readonly apiKeys?: readonly string[];
  /**
   * Approve a visited login automatically once it has been polled this many times
   * while pending (default 1: the first poll answers 404, the next 200); `false` waits
   * for {@link AuthState.approveLogin}.
   */
  readonly autoApproveAfterPolls?: number | false;
}

/**
 * How a client refreshed (the four variants seen in the wild).
 *
 * @example
 * ```ts
 * import type { RefreshVariant } from "../../mod.ts";
 *
 * const used: RefreshVariant = "oauth-token";
 * console.assert(used === "oauth-token");
 * ```
 */
export type RefreshVariant = "oauth-token" | "auth-token" | "auth-refresh" | "re-exchange";

/**
 * One auth event, for tests to assert on.
 *
 * @example
 * ```ts
 * import { createEmulator, type AuthEvent } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const events: AuthEvent[] = emulator.auth.events();
 *   console.assert(events.length === 0);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface AuthEvent {
  /** Emulator clock time (ms). */
  readonly time: number;
  /** What happened. */
  readonly kind: "login-visit" | "login-approved" | "poll" | "exchange" | "refresh" | "rejected";
  /** The refresh variant, for `refresh` events. */
  readonly variant?: RefreshVariant;
  /** Whether it succeeded. */
  readonly ok: boolean;
  /** More about it (uuid, reason, …). */
  readonly detail: string;
}

/**
 * Tokens as the auth endpoints return them.
 *
 * @example
 * ```ts
 * import { createEmulator, type TokenPair } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const tokens: TokenPair = await emulator.auth.issueTokens();
 *   console.assert(tokens.accessToken.split(".").length === 3);
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface TokenPair {
  /** The JWT to send as `authorization: Bearer …`. */
  readonly accessToken: string;
  /** The refresh token (a JWT of type `refresh`). */
  readonly refreshToken: string;
}

/**
 * Why a bearer token was refused.
 *
 * @example
 * ```ts
 * import { createEmulator, type TokenRefusal } from "../../mod.ts";
 *
 * const emulator = await createEmulator();
 * try {
 *   const refusal: TokenRefusal | undefined = await emulator.auth.checkBearer(null);
 *   console.assert(refusal?.detail === "ERROR_NOT_LOGGED_IN");
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export interface TokenRefusal {
  /** More about it (uuid, reason, …). */
  readonly detail:
    | "ERROR_NOT_LOGGED_IN"
    | "ERROR_AUTH_TOKEN_EXPIRED"
    | "ERROR_AUTH_TOKEN_NOT_FOUND";
  /** Why, for a person. */
  readonly message: string;
}

interface LoginSession {
  readonly challenge: string;
  approved: boolean;
  polls: number;
}

const MAX_LOGINS = 256;
/** The numeric user id of the emulator's one account (`/v1/me`). */
export const EMULATOR_USER_ID = 1001;
/** The e-mail of the emulator's one account (`/v1/me`). */
export const EMULATOR_USER_EMAIL = "user@emulator.invalid";
const HOUR_MS = 60 * 60 * 1000;

/**
 * The auth state of one emulator. Exposed to tests as `emulator.auth`.
 *
 * @example Approving a browser login and testing token expiry
 * ```ts
 * import { createEmulator } from "../../mod.ts";
 *
 * const emulator = await createEmulator({ auth: { autoApproveAfterPolls: false } });
 * try {
 *   const uuid = emulator.auth.visitLogin("https://cursor.com/loginDeepControl?challenge=abc&uuid=u-1");
 *   console.assert(uuid === "u-1" && emulator.auth.approveLogin("u-1"));
 *   emulator.auth.setTokenLifetime(1_000);
 *   const { accessToken } = await emulator.auth.issueTokens();
 *   console.assert(await emulator.auth.revoke(accessToken));
 * } finally {
 *   await emulator.close();
 * }
 * ```
 */
export class AuthState {
  readonly #now: () => number;
  readonly #codec: JwtCodec;
  readonly #options: AuthOptions;
  readonly #logins = new Map<string, LoginSession>();
  readonly #revoked = new Set<string>();
  readonly #events: AuthEvent[] = [];
  readonly #keysSeen = new Map<string, number>();
  #revokedBefore = 0;
  #accessLifetimeMs: number;
  #counter = 0;

  readonly #onMismatch: (message: string) => void;

  private constructor(
    options: AuthOptions,
    codec: JwtCodec,
    now: () => number,
    onMismatch: (message: string) => void,
  ) {
    this.#options = options;
    this.#codec = codec;
    this.#now = now;
    this.#onMismatch = onMismatch;
    this.#accessLifetimeMs = options.accessTokenLifetimeMs ?? HOUR_MS;
  }

  /**
   * Creates the state (generates the signing key).
   *
   * @param options Auth options.
   * @param now The clock.
   * @param onMismatch Called when a poll's verifier does not match its challenge.
   */
  static async create(
    options: AuthOptions,
    now: () => number,
    onMismatch: (message: string) => void = () => {},
  ): Promise<AuthState> {
    return new AuthState(
      options,
      await createJwtCodec(options.signing ?? "hs256"),
      now,
      onMismatch,
    );
  }

  /** Whether RPCs require a valid bearer token. */
  get required(): boolean {
    return this.#options.required ?? true;
  }

  /** Sets the lifetime of access tokens issued from now on. */
  setTokenLifetime(ms: number): void {
    this.#accessLifetimeMs = ms;
  }

  /** Issues a fresh access + refresh token pair (a logged-in session). */
  async issueTokens(type = "access"): Promise<TokenPair> {
    const now = this.#now();
    const user = "user-emulator";
    const accessToken = await this.#sign(user, type, now, this.#accessLifetimeMs);
    const refreshLifetime = this.#options.refreshTokenLifetimeMs ?? 60 * 24 * HOUR_MS;
    const refreshToken = await this.#sign(user, "refresh", now, refreshLifetime);
    return { accessToken, refreshToken };
  }

  async #sign(sub: string, type: string, now: number, lifetimeMs: number): Promise<string> {
    this.#counter++;
    const claims: TokenClaims = {
      sub,
      iat: Math.floor(now / 1000),
      exp: Math.floor((now + lifetimeMs) / 1000),
      type,
      jti: `tok-${this.#counter}-${crypto.randomUUID()}`,
      iss: "cursor-emulator",
    };
    return await this.#codec.sign(claims);
  }

  /**
   * Checks a bearer token presented on an RPC.
   *
   * @param authorization The `authorization` header value, if any.
   * @returns The refusal, or `undefined` when the token is valid.
   */
  async checkBearer(authorization: string | null): Promise<TokenRefusal | undefined> {
    if (!this.required) return undefined;
    const match = /^Bearer\s+(\S+)$/i.exec(authorization ?? "");
    if (!match?.[1]) {
      return { detail: "ERROR_NOT_LOGGED_IN", message: "Missing bearer token" };
    }
    const claims = await this.#codec.verify(match[1]);
    if (claims === undefined || claims.type === "refresh") {
      return {
        /** More about it (uuid, reason, …). */
        detail: "ERROR_AUTH_TOKEN_NOT_FOUND",
        /** Why, for a person. */
        message: "Bearer token is not a valid access token",
      };
    }
    if (this.#isRevoked(claims)) {
      return { detail: "ERROR_NOT_LOGGED_IN", message: "Session was revoked" };
    }
    if (claims.exp * 1000 <= this.#now()) {
      return { detail: "ERROR_AUTH_TOKEN_EXPIRED", message: "Access token expired" };
    }
    return undefined;
  }

  #isRevoked(claims: TokenClaims): boolean {
    return this.#revoked.has(claims.jti) || claims.iat * 1000 < this.#revokedBefore;
  }

  /**
   * Validates a refresh token.
   *
   * @returns The claims, or `undefined` when malformed, not a refresh token, revoked or expired.
   */
  async checkRefreshToken(token: string): Promise<TokenClaims | undefined> {
    const claims = await this.#codec.verify(token);
    if (claims === undefined || claims.type !== "refresh" || this.#isRevoked(claims)) {
      return undefined;
    }
    return claims.exp * 1000 > this.#now() ? claims : undefined;
  }

  /** Whether an API key is accepted. */
  acceptsApiKey(key: string): boolean {
    const ok = this.#options.apiKeys !== undefined
      ? this.#options.apiKeys.includes(key)
      : /^crsr_[A-Za-z0-9_-]{8,}$/.test(key);
    if (ok && !this.#keysSeen.has(key)) this.#keysSeen.set(key, this.#now());
    return ok;
  }

  /**
   * The account behind an API key, as `GET /v1/me` answers it: a personal key of the
   * emulator's one user (`user-emulator`), created when the emulator first saw it.
   *
   * @param key An accepted `crsr_` key.
   */
  me(key: string): {
    apiKeyName: string;
    userId: number;
    userEmail: string;
    createdAt: string;
  } {
    const created = this.#keysSeen.get(key) ?? this.#now();
    this.#keysSeen.set(key, created);
    return {
      apiKeyName: "emulator",
      userId: EMULATOR_USER_ID,
      userEmail: EMULATOR_USER_EMAIL,
      createdAt: new Date(created).toISOString(),
    };
  }

  /** Revokes one token (access or refresh). */
  async revoke(token: string): Promise<boolean> {
    const claims = await this.#codec.verify(token);
    if (claims === undefined) return false;
    this.#revoked.add(claims.jti);
    return true;
  }

  /** Revokes every token issued so far. */
  revokeAll(): void {
    this.#revokedBefore = this.#now() + 1000;
  }

  /** Registers a login from the login page URL (what a browser visit does). */
  visitLogin(url: string | URL): string | undefined {
    const parsed = new URL(url, "http://emulator.invalid");
    const uuid = parsed.searchParams.get("uuid");
    const challenge = parsed.searchParams.get("challenge");
    if (!uuid || !challenge) return undefined;
    if (this.#logins.size >= MAX_LOGINS) {
      const oldest = this.#logins.keys().next().value;
      if (oldest !== undefined) this.#logins.delete(oldest);
    }
    this.#logins.set(uuid, { challenge, approved: false, polls: 0 });
    this.record({ kind: "login-visit", ok: true, detail: uuid });
    return uuid;
  }

  /** Approves a visited login; the next poll returns tokens. */
  approveLogin(uuid: string): boolean {
    const login = this.#logins.get(uuid);
    if (login === undefined) return false;
    login.approved = true;
    this.record({ kind: "login-approved", ok: true, detail: uuid });
    return true;
  }

  /**
   * Handles one poll.
   *
   * @returns `pending`, `mismatch` (verifier does not match the challenge), or tokens.
   */
  async poll(uuid: string, verifier: string): Promise<"pending" | "mismatch" | TokenPair> {
    const login = this.#logins.get(uuid);
    if (login === undefined) return "pending";
    const auto = this.#options.autoApproveAfterPolls ?? 1;
    if (!login.approved && auto !== false && login.polls >= auto) login.approved = true;
    login.polls++;
    if (!login.approved) return "pending";
    const challenge = base64Encode(await sha256(verifier), "url");
    if (challenge !== login.challenge) {
      this.#onMismatch(
        `Login ${uuid}: the verifier does not hash to the challenge of the login URL`,
      );
      return "mismatch";
    }
    this.#logins.delete(uuid);
    return await this.issueTokens();
  }

  /** Records an event. */
  record(event: Omit<AuthEvent, "time">): void {
    this.#events.push({ ...event, time: this.#now() });
    if (this.#events.length > 1000) this.#events.shift();
  }

  /** Every auth event so far (bounded to the last 1000). */
  events(): AuthEvent[] {
    return [...this.#events];
  }

  /** The refresh variants clients used, in order. */
  refreshVariants(): RefreshVariant[] {
    return this.#events.flatMap((event) =>
      event.kind === "refresh" && event.ok && event.variant !== undefined ? [event.variant] : []
    );
  }
}
