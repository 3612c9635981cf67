/**
 * The credentials checks: which credentials the provider would use (`CURSOR_API_KEY`,
 * else OpenCode's stored login), whether they decode, when the access token expires,
 * and a live exchange with Cursor. Secrets are never part of a result.
 *
 * @module
 */
import { exchangeApiKey } from "../auth/api-key-exchange.ts";
import { jwtExpiryMs } from "../auth/jwt.ts";
import { CursorError } from "../core/cursor-error.ts";
import { type CheckResult, type DoctorProbes, result } from "./doctor-types.ts";

/** Credentials as found (kept inside the doctor; never printed). */
export type FoundCredentials =
  | { readonly kind: "api-key"; readonly key: string; readonly source: string }
  | {
    readonly kind: "oauth";
    readonly access: string;
    readonly refresh: string | undefined;
    readonly expires: number | undefined;
    readonly source: string;
  }
  | { readonly kind: "unreadable"; readonly source: string; readonly reason: string }
  | { readonly kind: "none" };

const LOGIN_FIX = "opencode auth login (choose Cursor), or export CURSOR_API_KEY=crsr_… " +
  "with a key from cursor.com/settings";

/** The sign-in fix without OpenCode: the variable (or the setting) a plain app reads. */
const KEY_FIX = "export CURSOR_API_KEY=crsr_… with a key from cursor.com/settings " +
  "(or pass apiKey to createCursor())";

/**
 * Finds the credentials the provider would use.
 *
 * @param probes Environment and file access.
 * @returns What was found.
 */
export async function findCredentials(probes: DoctorProbes): Promise<FoundCredentials> {
  const key = probes.env.CURSOR_API_KEY?.trim();
  if (key) return { kind: "api-key", key, source: "CURSOR_API_KEY" };
  const inline = probes.env.OPENCODE_AUTH_CONTENT?.trim();
  const source = inline ? "OPENCODE_AUTH_CONTENT" : probes.paths.authFile;
  const text = inline || await probes.readFile(probes.paths.authFile);
  if (text === undefined) return { kind: "none" };
  let entry: unknown;
  try {
    entry = (JSON.parse(text) as Record<string, unknown> | null)?.cursor;
  } catch {
    return { kind: "unreadable", source, reason: "it is not valid JSON" };
  }
  if (entry === undefined) return { kind: "none" };
  const fields = typeof entry === "object" && entry !== null
    ? entry as Record<string, unknown>
    : {};
  if (fields.type === "api" && typeof fields.key === "string") {
    return { kind: "api-key", key: fields.key, source: `${source} (API key)` };
  }
  if (fields.type === "oauth" && typeof fields.access === "string") {
    return {
      kind: "oauth",
      access: fields.access,
      refresh: typeof fields.refresh === "string" ? fields.refresh : undefined,
      expires: typeof fields.expires === "number" ? fields.expires : undefined,
      source: `${source} (browser login)`,
    };
  }
  return {
    kind: "unreadable",
    source,
    reason: 'its "cursor" entry is neither an API key nor a login',
  };
}

/** The outcome of the credential checks: results, and a live access token when one was obtained. */
export interface CredentialCheck {
  readonly results: CheckResult[];
  readonly accessToken: string | undefined;
}

/** Where the live exchange goes. */
export interface ExchangeTarget {
  /** Cursor's API origin. */
  readonly apiBaseURL: string;
  /** Whether a plain-http loopback origin is allowed (a local emulator). */
  readonly allowLoopback: boolean;
  /** An OpenCode set-up is present (its config or auth file): fixes may name OpenCode. */
  readonly openCode?: boolean | undefined;
}

/**
 * Checks presence, shape, expiry, and a live exchange.
 *
 * @param probes Probes.
 * @param found What {@link findCredentials} returned.
 * @param target Where to exchange, and whether a loopback origin is allowed.
 * @returns Results and an access token for the checks that follow.
 */
export async function checkCredentials(
  probes: DoctorProbes,
  found: FoundCredentials,
  target: ExchangeTarget,
): Promise<CredentialCheck> {
  const title = "Credentials";
  const login = target.openCode === false ? KEY_FIX : LOGIN_FIX;
  if (found.kind === "none") {
    return {
      results: [result(
        "credentials.present",
        title,
        "fail",
        "No Cursor credentials found " +
          (target.openCode === false
            ? "(CURSOR_API_KEY is unset)"
            : `(CURSOR_API_KEY is unset and ${probes.paths.authFile} has no "cursor" entry)`),
        login,
      )],
      accessToken: undefined,
    };
  }
  if (found.kind === "unreadable") {
    return {
      results: [
        result(
          "credentials.decodable",
          title,
          "fail",
          `Cannot read the Cursor login in ${found.source}: ${found.reason}`,
          `opencode auth logout, then ${LOGIN_FIX}`,
        ),
      ],
      accessToken: undefined,
    };
  }
  const present = result("credentials.present", title, "ok", `Found in ${found.source}`);
  if (found.kind === "api-key") return await apiKeyChecks(probes, found.key, present, target);
  return oauthChecks(probes, found, present);
}

async function apiKeyChecks(
  probes: DoctorProbes,
  key: string,
  present: CheckResult,
  target: ExchangeTarget,
): Promise<CredentialCheck> {
  const { apiBaseURL } = target;
  if (!/^crsr_[A-Za-z0-9_-]{8,}$/.test(key)) {
    return {
      results: [
        present,
        result(
          "credentials.decodable",
          "API key",
          "fail",
          "The API key does not look like a Cursor key (crsr_ followed by at least 8 characters)",
          `create a key at cursor.com/settings, then ${
            target.openCode === false ? KEY_FIX : LOGIN_FIX
          }`,
        ),
      ],
      accessToken: undefined,
    };
  }
  const decodable = result("credentials.decodable", "API key", "ok", "Has the crsr_ form");
  try {
    const tokens = await exchangeApiKey(key, {
      apiBaseURL,
      allowLoopback: target.allowLoopback,
      fetch: probes.fetch,
      timeoutMs: 10_000,
    });
    const expiry = jwtExpiryMs(tokens.accessToken);
    const live = result(
      "credentials.live",
      "Token exchange",
      "ok",
      `Cursor exchanged the key for an access token${expiry ? ` valid until ${iso(expiry)}` : ""}`,
    );
    return { results: [present, decodable, live], accessToken: tokens.accessToken };
  } catch (error) {
    const rejected = error instanceof CursorError && error.code === "unauthenticated";
    const live = result(
      "credentials.live",
      "Token exchange",
      "fail",
      `${rejected ? "Cursor rejected the API key" : messageOf(error)} (${apiBaseURL})`,
      rejected
        ? `create a new key at cursor.com/settings, then ${
          target.openCode === false ? KEY_FIX : LOGIN_FIX
        }`
        : "check the network (see the hosts checks below), then run doctor again",
    );
    return { results: [present, decodable, live], accessToken: undefined };
  }
}

function oauthChecks(
  probes: DoctorProbes,
  found: Extract<FoundCredentials, { kind: "oauth" }>,
  present: CheckResult,
): CredentialCheck {
  const expiry = jwtExpiryMs(found.access) ?? found.expires;
  if (jwtExpiryMs(found.access) === undefined) {
    return {
      results: [
        present,
        result(
          "credentials.decodable",
          "Access token",
          "fail",
          "The stored access token is not a decodable JWT",
          `opencode auth logout, then ${LOGIN_FIX}`,
        ),
      ],
      accessToken: undefined,
    };
  }
  const decodable = result("credentials.decodable", "Access token", "ok", "A decodable JWT");
  const now = probes.now();
  if (expiry !== undefined && expiry <= now) {
    const renewable = found.refresh !== undefined && found.refresh !== "";
    return {
      results: [
        present,
        decodable,
        result(
          "credentials.expiry",
          "Token expiry",
          renewable ? "warn" : "fail",
          `The access token expired at ${iso(expiry)} (${ago(now - expiry)} ago)` +
            (renewable ? "; OpenCode renews it with the refresh token at its next request" : ""),
          `if OpenCode then reports a sign-in error: ${LOGIN_FIX}`,
        ),
      ],
      accessToken: undefined,
    };
  }
  const left = expiry === undefined ? "no expiry stated" : `valid until ${iso(expiry)}`;
  return {
    results: [present, decodable, result("credentials.expiry", "Token expiry", "ok", left)],
    accessToken: found.access,
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An ISO time without milliseconds. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** A rough duration: `5 min`, `3 h`, `2 days`. */
export function ago(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes < 120) return `${minutes} min`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} h` : `${Math.round(hours / 24)} days`;
}
