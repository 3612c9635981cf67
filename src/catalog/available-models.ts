/**
 * Fetching the model catalogue: `aiserver.v1.AiService/AvailableModels` with the JSON
 * codec, asking for parameters and variants, decoded with the generated schema.
 *
 * @module
 */
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { CursorError } from "../core/cursor-error.ts";
import { AvailableModelsResponseSchema } from "../gen/aiserver/v1/ai_service_pb.ts";
import { resolveClientVersion, unaryJsonHeaders } from "../protocol/headers.ts";
import { callUnaryJson } from "../transport/unary.ts";
import { catalogFromResponse, type CatalogModel } from "./catalog-model.ts";

/** What one catalogue request needs. */
export interface AvailableModelsCall {
  /** Cursor's API origin. */
  readonly apiBaseURL: string;
  /** A valid access token. */
  readonly accessToken: string;
  readonly fetch: typeof fetch;
  /** The 64-hex machine id for the checksum header. */
  readonly machineId: string;
  /** The `cli-…` client version; default the pinned one. */
  readonly clientVersion?: string | undefined;
  readonly now?: (() => number) | undefined;
  readonly generateId?: (() => string) | undefined;
  /** Deadline; default 5 s. */
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/** The request body: long-context models, parameters and the effort modes included. */
export const AVAILABLE_MODELS_REQUEST = Object.freeze({
  includeLongContextModels: true,
  useModelParameters: true,
  useCloudAgentEffortModes: true,
});

/**
 * Fetches the account's models.
 *
 * @param call Origin, token, fetch and identity.
 * @returns The catalogue models (possibly empty when Cursor lists none).
 * @throws {CursorError} as classified from the call; `protocol` for an undecodable answer.
 */
export async function fetchAvailableModels(call: AvailableModelsCall): Promise<CatalogModel[]> {
  const now = call.now ?? Date.now;
  const headers = unaryJsonHeaders({
    accessToken: call.accessToken,
    clientVersion: resolveClientVersion(call.clientVersion),
    requestId: (call.generateId ?? (() => crypto.randomUUID()))(),
    nowMs: now(),
    machineId: call.machineId,
  });
  return await requestAvailableModels({ ...call, headers });
}

/** One AvailableModels request with headers already built (auth, checksum, JSON). */
export interface AvailableModelsRequest {
  readonly apiBaseURL: string;
  readonly headers: Record<string, string>;
  readonly fetch: typeof fetch;
  readonly timeoutMs?: number | undefined;
  readonly signal?: AbortSignal | undefined;
}

/**
 * Asks Cursor for its model catalogue with prepared headers (the provider's own).
 *
 * @param call Where to ask and with which headers.
 * @returns The catalogue.
 * @throws {CursorError} as {@link fetchAvailableModels}.
 */
export async function requestAvailableModels(
  call: AvailableModelsRequest,
): Promise<CatalogModel[]> {
  const answer = await callUnaryJson({
    url: `${call.apiBaseURL.trim().replace(/\/+$/, "")}/aiserver.v1.AiService/AvailableModels`,
    headers: call.headers,
    fetch: call.fetch,
    ...(call.timeoutMs === undefined ? {} : { timeoutMs: call.timeoutMs }),
    ...(call.signal === undefined ? {} : { signal: call.signal }),
  }, AVAILABLE_MODELS_REQUEST);
  if (typeof answer !== "object" || answer === null || Array.isArray(answer)) {
    throw new CursorError("protocol", "AvailableModels answered something other than an object");
  }
  try {
    const response = fromJson(AvailableModelsResponseSchema, answer as JsonValue, {
      ignoreUnknownFields: true,
    });
    return catalogFromResponse(response);
  } catch (cause) {
    throw new CursorError("protocol", "Cannot decode the AvailableModels answer", { cause });
  }
}
