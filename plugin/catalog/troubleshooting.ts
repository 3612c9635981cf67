/**
 * Messages a person can act on about the model list: where it came from, and when it is
 * empty or stale, why and what to do (see docs/opencode.md, "Troubleshooting").
 *
 * @module
 */
import type { CatalogResult } from "../../src/catalog/model-cache.ts";
import { SIGN_IN_AGAIN, signInError } from "../auth/credentials.ts";

/** A message with its level. */
export interface Explanation {
  readonly level: "info" | "warn";
  readonly message: string;
}

/** Facts the explanation uses. */
export interface ExplainContext {
  /** Cursor credentials are stored. */
  readonly signedIn: boolean;
  /** Where the cache lives (shown so the person can delete it). */
  readonly cacheLocation: string;
  readonly now: number;
}

/**
 * Explains a catalogue load.
 *
 * @param result The load result.
 * @param context Sign-in state, cache location and clock.
 * @returns The message and its level.
 *
 * @example
 * ```ts
 * import { explainCatalog } from "./troubleshooting.ts";
 *
 * const explanation = explainCatalog({ models: [], source: "none" }, {
 *   signedIn: false, cacheLocation: "~/.cache/opencode/cursor-models.json", now: 0,
 * });
 * console.assert(explanation.message.includes("opencode auth login"));
 * ```
 */
export function explainCatalog(result: CatalogResult, context: ExplainContext): Explanation {
  const count = result.models.length;
  const failure = result.error === undefined ? "" : signInError(result.error).message;
  switch (result.source) {
    case "cache":
      return {
        level: "info",
        message: `Cursor models: ${count} from ${context.cacheLocation} (fetched ${
          age(context.now, result.fetchedAt)
        } ago)`,
      };
    case "network":
      return count > 0
        ? { level: "info", message: `Cursor models: ${count} fetched from Cursor` }
        : {
          level: "warn",
          message:
            "Cursor listed no models for this account, so the model list is empty. Check your Cursor plan, then restart OpenCode",
        };
    case "stale-cache":
      return {
        level: "warn",
        message:
          `Cursor models: ${count} from a stale cache (fetched ${
            age(context.now, result.fetchedAt)
          } ago)${
            failure === "" ? "; sign in to refresh it" : `; refreshing failed: ${failure}`
          }. ` +
          `To refetch, delete ${context.cacheLocation} and restart OpenCode`,
      };
    case "none":
      if (!context.signedIn) {
        return {
          level: "warn",
          message:
            `No Cursor models yet: you are not signed in. ${SIGN_IN_AGAIN} Then restart OpenCode`,
        };
      }
      return {
        level: "warn",
        message: `No Cursor models: fetching the model list failed${
          failure === "" ? "" : `: ${failure}`
        }. Check the network (and the Cursor API address), then restart OpenCode`,
      };
  }
}

function age(now: number, then: number | undefined): string {
  if (then === undefined) return "an unknown time";
  const minutes = Math.max(0, Math.round((now - then) / 60_000));
  if (minutes < 90) return `${minutes} min`;
  return `${Math.round(minutes / 60)} h`;
}
