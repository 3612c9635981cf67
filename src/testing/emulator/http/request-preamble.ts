/**
 * What the emulator checks before it reads a call's message: the bearer token (every
 * call), and for unary-shaped calls (the unary RPCs and `BidiAppend`) a Connect unary
 * media type and a body within the route's size limit.
 *
 * @module
 */
import type { EmulatorCore } from "./emulator-core.ts";
import {
  BodyTooLargeError,
  connectErrorResponse,
  mediaType,
  readBody,
  unauthenticatedError,
} from "../wire/connect-http.ts";

/** The two codecs of a Connect unary call. */
export type UnaryMediaType = "application/proto" | "application/json";

/** A request that passed the preamble: its codec and its whole body. */
export interface AcceptedRequest {
  /** `application/proto` or `application/json`. */
  readonly type: UnaryMediaType;
  /** The request body (empty when the request had none). */
  readonly body: Uint8Array;
}

/** Checks the bearer token; returns the 401 response when it is refused. */
export async function authorize(
  core: EmulatorCore,
  request: Request,
): Promise<Response | undefined> {
  const refusal = await core.auth.checkBearer(request.headers.get("authorization"));
  if (refusal === undefined) return undefined;
  return connectErrorResponse(unauthenticatedError(refusal.detail, refusal.message), 401);
}

/**
 * Checks a unary-shaped request's media type (415 otherwise), its authorization (the
 * auth service's refusal) and its body size (`resource_exhausted` past `limit`), in the
 * order Cursor's server answers them.
 *
 * @param core The emulator.
 * @param request The incoming request.
 * @param limit The largest body the route takes, in bytes.
 * @param what The call's name in the size refusal ("Request", "BidiAppend").
 * @returns The accepted codec and body, or the refusal to send.
 */
export async function acceptUnaryRequest(
  core: EmulatorCore,
  request: Request,
  limit: number,
  what: string,
): Promise<AcceptedRequest | Response> {
  const type = mediaType(request);
  if (type !== "application/proto" && type !== "application/json") {
    return connectErrorResponse({
      code: "unknown",
      message: `Unsupported content type ${JSON.stringify(type)}`,
    }, 415);
  }
  const refused = await authorize(core, request);
  if (refused !== undefined) return refused;
  try {
    return { type, body: await readBody(request, limit) };
  } catch (cause) {
    if (cause instanceof BodyTooLargeError) {
      return connectErrorResponse({
        code: "resource_exhausted",
        message: `${what} exceeds ${cause.limit} bytes`,
      });
    }
    throw cause;
  }
}

/**
 * The `invalid_argument` answer for a request body that does not decode.
 *
 * @param what What was being decoded ("the request", a message type name).
 * @param cause Why it failed.
 */
export function undecodableRequest(what: string, cause: unknown): Response {
  return connectErrorResponse({
    code: "invalid_argument",
    message: `Cannot decode ${what}: ${cause instanceof Error ? cause.message : String(cause)}`,
  });
}

/**
 * A successful unary answer in the request's codec.
 *
 * @param type The request's codec.
 * @param answer The binary message, or for JSON the text of the JSON value.
 */
export function unaryAnswer(type: UnaryMediaType, answer: Uint8Array | string): Response {
  return new Response(typeof answer === "string" ? answer : new Uint8Array(answer), {
    status: 200,
    headers: { "content-type": type },
  });
}
