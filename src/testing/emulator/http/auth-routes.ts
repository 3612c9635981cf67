/**
 * The plain-JSON auth endpoints: the login page, login polling, API key exchange and
 * the four refresh variants (`/oauth/token`, `/auth/token`, `/auth/refresh`,
 * re-exchange through `/auth/exchange_user_api_key`).
 *
 * @module
 */
import type { AuthState, RefreshVariant, TokenPair } from "../auth/auth-state.ts";
import {
  connectErrorResponse,
  jsonResponse,
  readBody,
  unauthenticatedError,
} from "../wire/connect-http.ts";

const AUTH_BODY_LIMIT = 64 * 1024;

/** Paths the auth router answers. */
export const AUTH_PATHS: readonly string[] = [
  "/loginDeepControl",
  "/auth/poll",
  "/auth/exchange_user_api_key",
  "/auth/token",
  "/auth/refresh",
  "/oauth/token",
];

/**
 * Answers an auth request.
 *
 * @param auth The auth state.
 * @param request The request.
 * @param path Its path.
 * @returns The response.
 */
export async function handleAuth(
  auth: AuthState,
  request: Request,
  path: string,
): Promise<Response> {
  switch (path) {
    case "/loginDeepControl":
      return loginPage(auth, request);
    case "/auth/poll":
      return await poll(auth, request);
    case "/auth/exchange_user_api_key":
      return await exchange(auth, request);
    case "/auth/token":
      return await refreshWithBody(auth, request, "auth-token");
    case "/auth/refresh":
      return await refreshWithBearer(auth, request, "auth-refresh");
    case "/oauth/token":
      return await oauthToken(auth, request);
    default:
      return jsonResponse(404, { error: `No auth route ${JSON.stringify(path)}` });
  }
}

function loginPage(auth: AuthState, request: Request): Response {
  const uuid = auth.visitLogin(request.url);
  if (uuid === undefined) {
    return new Response("Login URL needs uuid and challenge parameters", { status: 400 });
  }
  return new Response(
    `<!doctype html><title>Cursor emulator login</title><p>Login ${uuid} registered.</p>`,
    { status: 200, headers: { "content-type": "text/html; charset=utf-8" } },
  );
}

async function poll(auth: AuthState, request: Request): Promise<Response> {
  if (request.method !== "GET") return jsonResponse(405, { error: "Use GET for /auth/poll" });
  const url = new URL(request.url);
  const uuid = url.searchParams.get("uuid") ?? "";
  const verifier = url.searchParams.get("verifier") ?? "";
  if (uuid === "" || verifier === "") {
    return jsonResponse(400, { error: "Poll needs uuid and verifier parameters" });
  }
  const outcome = await auth.poll(uuid, verifier);
  auth.record({
    kind: "poll",
    ok: typeof outcome === "object",
    detail: typeof outcome === "object" ? "approved" : outcome,
  });
  if (outcome === "pending") return jsonResponse(404, { error: "Login pending" });
  if (outcome === "mismatch") {
    return jsonResponse(403, { error: "PKCE verifier does not match the login challenge" });
  }
  return jsonResponse(200, { ...outcome, authId: "auth0|user-emulator" });
}

function bearerOf(request: Request): string | undefined {
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

async function jsonBody(request: Request): Promise<Record<string, unknown> | undefined> {
  const bytes = await readBody(request, AUTH_BODY_LIMIT);
  if (bytes.length === 0) return {};
  try {
    const value: unknown = JSON.parse(new TextDecoder().decode(bytes));
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? value as Record<string, unknown>
      : undefined;
  } catch {
    return undefined;
  }
}

async function exchange(auth: AuthState, request: Request): Promise<Response> {
  if (request.method !== "POST") return jsonResponse(405, { error: "Use POST" });
  const body = await jsonBody(request);
  if (body === undefined) return badJson();
  const fromBody = typeof body.apiKey === "string" ? body.apiKey : undefined;
  const presented = bearerOf(request) ?? fromBody ?? "";
  if (presented.startsWith("crsr_")) {
    if (!auth.acceptsApiKey(presented)) {
      auth.record({ kind: "exchange", ok: false, detail: "API key rejected" });
      return connectErrorResponse(
        unauthenticatedError("ERROR_BAD_USER_API_KEY", "The provided API key is invalid"),
      );
    }
    auth.record({ kind: "exchange", ok: true, detail: fromBody === undefined ? "header" : "body" });
    return jsonResponse(200, await auth.issueTokens("api_key_token"));
  }
  return await refreshWith(auth, presented, "re-exchange");
}

async function refreshWithBody(
  auth: AuthState,
  request: Request,
  variant: RefreshVariant,
): Promise<Response> {
  if (request.method !== "POST") return jsonResponse(405, { error: "Use POST" });
  const body = await jsonBody(request);
  if (body === undefined) return badJson();
  const token = typeof body.refreshToken === "string" ? body.refreshToken : "";
  return await refreshWith(auth, token, variant);
}

async function refreshWithBearer(
  auth: AuthState,
  request: Request,
  variant: RefreshVariant,
): Promise<Response> {
  if (request.method !== "POST") return jsonResponse(405, { error: "Use POST" });
  return await refreshWith(auth, bearerOf(request) ?? "", variant);
}

async function refreshed(
  auth: AuthState,
  token: string,
  variant: RefreshVariant,
): Promise<TokenPair | undefined> {
  const claims = token === "" ? undefined : await auth.checkRefreshToken(token);
  auth.record({
    kind: "refresh",
    variant,
    ok: claims !== undefined,
    detail: claims === undefined ? "refresh token rejected" : "refreshed",
  });
  return claims === undefined ? undefined : await auth.issueTokens();
}

async function refreshWith(
  auth: AuthState,
  token: string,
  variant: RefreshVariant,
): Promise<Response> {
  const pair = await refreshed(auth, token, variant);
  if (pair === undefined) {
    return connectErrorResponse(
      unauthenticatedError("ERROR_NOT_LOGGED_IN", "Refresh token is invalid, expired or revoked"),
    );
  }
  return jsonResponse(200, pair);
}

async function oauthToken(auth: AuthState, request: Request): Promise<Response> {
  if (request.method !== "POST") return jsonResponse(405, { error: "Use POST" });
  const body = await jsonBody(request);
  if (body === undefined) return badJson();
  if (body.grant_type !== "refresh_token" || typeof body.refresh_token !== "string") {
    return jsonResponse(400, {
      error: "invalid_request",
      error_description: "Expected grant_type refresh_token",
    });
  }
  const pair = await refreshed(auth, body.refresh_token, "oauth-token");
  if (pair === undefined) return jsonResponse(200, { shouldLogout: true });
  return jsonResponse(200, {
    access_token: pair.accessToken,
    id_token: pair.accessToken,
    refresh_token: pair.refreshToken,
    shouldLogout: false,
  });
}

function badJson(): Response {
  return jsonResponse(400, { error: "Request body is not a JSON object" });
}
