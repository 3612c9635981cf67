/**
 * The emulator's web-standard request handler (`(Request) => Promise<Response>`):
 * routes api2-style paths (auth, AiService, ServerConfigService, BidiService) and agent
 * paths (RunSSE; `Run` answers 464 over HTTP/1.1 like the real load balancer), logs
 * every request, and turns any unexpected failure into a Connect `internal` error so the
 * server stays up.
 *
 * @module
 */
import { AUTH_PATHS, handleAuth } from "./auth-routes.ts";
import { connectErrorResponse } from "../wire/connect-http.ts";
import type { EmulatorCore } from "./emulator-core.ts";
import { handleBidiAppend, handleRunSse } from "./sse-routes.ts";
import { UNARY_ROUTES } from "./unary-routes.ts";
import { handleRest, REST_PATHS } from "./rest-routes.ts";

/** Path of the bidi Run. */
export const RUN_PATH = "/agent.v1.AgentService/Run";

/**
 * Creates the handler.
 *
 * @param core The emulator.
 * @returns A fetch handler.
 */
export function createFetchHandler(core: EmulatorCore): (request: Request) => Promise<Response> {
  return async (request) => {
    const path = new URL(request.url).pathname;
    let response: Response;
    try {
      response = await route(core, request, path);
    } catch (cause) {
      response = connectErrorResponse({
        code: "internal",
        message: `Emulator failure: ${cause instanceof Error ? cause.message : String(cause)}`,
      });
    }
    core.log.add({
      time: core.options.now(),
      runId: undefined,
      direction: "http",
      rpc: path,
      kind: `${request.method} ${response.status}`,
      summary: request.headers.get("content-type") ?? "",
    });
    return response;
  };
}

async function route(core: EmulatorCore, request: Request, path: string): Promise<Response> {
  if (AUTH_PATHS.includes(path)) return await handleAuth(core.auth, request, path);
  if (path === "/" || path === "/health") {
    return new Response("Cursor emulator", {
      status: 200,
      headers: { "content-type": "text/plain" },
    });
  }
  if (REST_PATHS.includes(path)) {
    return handleRest(core.auth, core.options.models, request, path);
  }
  if (request.method !== "POST") {
    return connectErrorResponse({
      code: "unimplemented",
      message: `Use POST for ${JSON.stringify(path)}`,
    }, 405);
  }
  if (path === RUN_PATH) {
    return new Response("Bidi streaming requires HTTP/2", {
      status: 464,
      headers: { "content-type": "text/plain" },
    });
  }
  if (path === "/agent.v1.AgentService/RunSSE") return await handleRunSse(core, request);
  if (path === "/aiserver.v1.BidiService/BidiAppend") return await handleBidiAppend(core, request);
  const unary = UNARY_ROUTES[path];
  if (unary !== undefined) return await unary(core, request);
  return connectErrorResponse({
    code: "unimplemented",
    message: `No procedure at ${JSON.stringify(path)}`,
  }, 404);
}
