/**
 * The context window a first Run's seed is checked against when no checkpoint has reported
 * one (ADR 172): the selected variant's window from Cursor's model catalogue — its
 * `context` parameter, the Max Mode window in Max Mode, else the model's own. Small seeds
 * are not checked (every model takes them), so most first Runs never read the catalogue.
 *
 * @module
 */
import { type CatalogModel, parseContextTokens } from "../../../catalog/catalog-model.ts";
import type { ConversationStore } from "../../../conversation/conversation-store.ts";
import type { ActiveTurn } from "../turn/active-turn.ts";
import type { ConvertedPrompt } from "../call/convert-prompt.ts";
import type { ModelSelection } from "../call/model-options.ts";
import { checkpointWindow } from "./seed-fit.ts";

/** Seeds estimated below this many tokens are not checked against the catalogue. */
export const CATALOGUE_CHECK_FROM_TOKENS = 32_000;

/** The Max Mode window of a model whose catalogue entry does not say (Cursor's 1M tier). */
const MAX_MODE_TOKENS = 1_000_000;

/**
 * The window of the selected variant, as the catalogue lists it.
 *
 * @param models The catalogue.
 * @param selection The wire model selection.
 * @returns Tokens, or `undefined` when the catalogue does not say.
 *
 * @example
 * ```ts
 * import { catalogueWindow } from "./seed-window.ts";
 *
 * const models = [{ id: "m", displayName: "M", thinking: false, images: false, tools: true, contextTokenLimit: 200_000, variants: [] }];
 * console.assert(catalogueWindow(models, { modelId: "m", parameters: [], maxMode: false }) === 200_000);
 * console.assert(catalogueWindow(models, { modelId: "m", parameters: [], maxMode: true }) === 1_000_000);
 * console.assert(catalogueWindow(models, { modelId: "m", parameters: [{ id: "context", value: "500k" }], maxMode: false }) === 500_000);
 * ```
 */
export function catalogueWindow(
  models: readonly CatalogModel[],
  selection: ModelSelection,
): number | undefined {
  const model = models.find((candidate) => candidate.id === selection.modelId);
  if (model === undefined) return undefined;
  const context = selection.parameters.find((parameter) => parameter.id === "context");
  const fromParameter = context === undefined ? undefined : parseContextTokens(context.value);
  if (fromParameter !== undefined) return fromParameter;
  if (selection.maxMode) return model.contextTokenLimitForMaxMode ?? MAX_MODE_TOKENS;
  return model.contextTokenLimit;
}

/**
 * The window to check a first Run's seed against, when it needs one: the conversation has
 * no checkpoint that reported a window, and the seed is large enough to matter.
 *
 * @param input The session's store and key, the selection, the converted prompt, and how
 *   to read the catalogue (cached by the caller; `undefined` when it cannot be read).
 * @returns Tokens, or `undefined` when nothing is to be checked.
 */
export async function firstRunWindow(input: {
  readonly store: ConversationStore<ActiveTurn>;
  readonly key: string | undefined;
  readonly selection: ModelSelection;
  readonly converted: ConvertedPrompt;
  readonly models: () => Promise<readonly CatalogModel[] | undefined>;
}): Promise<number | undefined> {
  const existing = input.key === undefined ? undefined : input.store.get(input.key);
  if (checkpointWindow(existing?.checkpoint) !== undefined) return undefined;
  const { systemPrompt, history, userText } = input.converted;
  const bytes = new TextEncoder().encode(`${systemPrompt}${history}${userText}`).length;
  if (bytes / 4 < CATALOGUE_CHECK_FROM_TOKENS) return undefined;
  const models = await input.models();
  return models === undefined ? undefined : catalogueWindow(models, input.selection);
}
