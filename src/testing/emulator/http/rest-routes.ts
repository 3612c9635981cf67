/**
 * The REST endpoints a local Cursor agent reads (`api.cursor.com` style, JSON):
 * `GET /v1/models`, built from the emulator's catalogue so it agrees with
 * `GetUsableModels`/`AvailableModels`, and `GET /v1/me`. Both take the raw `crsr_` API
 * key as bearer (not the exchanged JWT), as Cursor's client sends it.
 *
 * @module
 */
import type { AuthState } from "../auth/auth-state.ts";
import type { CatalogModel } from "../catalog/catalog.ts";
import { DEFAULT_MODEL_ID } from "../catalog/catalog.ts";
import { jsonResponse } from "../wire/connect-http.ts";

/** Paths the REST router answers. */
export const REST_PATHS: readonly string[] = ["/v1/models", "/v1/me"];

/**
 * Answers a REST request.
 *
 * @param auth The auth state.
 * @param models The catalogue.
 * @param request The request.
 * @param path Its path (one of {@link REST_PATHS}).
 * @returns The response.
 */
export function handleRest(
  auth: AuthState,
  models: readonly CatalogModel[],
  request: Request,
  path: string,
): Response {
  if (request.method !== "GET") {
    return restError(405, "method_not_allowed", `Use GET for ${JSON.stringify(path)}`);
  }
  const match = /^Bearer\s+(\S+)$/i.exec(request.headers.get("authorization") ?? "");
  const key = match?.[1] ?? "";
  if (key === "") return restError(401, "unauthorized", "Missing API key");
  if (!key.startsWith("crsr_") || !auth.acceptsApiKey(key)) {
    return restError(401, "unauthorized", "Invalid API key");
  }
  if (path === "/v1/models") return jsonResponse(200, { items: models.map(modelListItem) });
  return jsonResponse(200, auth.me(key));
}

function restError(status: number, code: string, message: string): Response {
  return jsonResponse(status, { error: { code, message } });
}

/**
 * A catalogue model as a `/v1/models` item.
 *
 * @param model The model.
 * @returns The JSON item.
 */
export function modelListItem(model: CatalogModel): Record<string, unknown> {
  return {
    id: model.id,
    displayName: model.displayName,
    ...(model.id === DEFAULT_MODEL_ID
      ? { description: "Picks a model for each request", aliases: ["auto"] }
      : {}),
    ...(model.parameters.length === 0 ? {} : {
      parameters: model.parameters.map((parameter) => ({
        id: parameter.id,
        displayName: parameter.name,
        values: parameter.values.map((value) => ({ value })),
      })),
    }),
    ...(model.variants.length === 0 ? {} : {
      variants: model.variants.map((variant) => ({
        params: Object.entries(variant.parameters).map(([id, value]) => ({ id, value })),
        displayName: variant.displayName,
        ...(variant.defaultNonMax === true ? { isDefault: true } : {}),
      })),
    }),
  };
}
