/**
 * The built-in model catalogue (data): six models with effort, thinking, fast and
 * context variants, a 1M tier, a 500k tier, image and max-mode support on some.
 *
 * @module
 */
import { ThinkingStyle } from "../../../gen/agent/v1/interaction_update_pb.ts";
import {
  type CatalogModel,
  type CatalogParameter,
  type CatalogVariant,
  DEFAULT_MODEL_ID,
} from "./catalog.ts";

const CONTEXT: CatalogParameter = {
  /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
  id: "context",
  /** Name shown in pickers. */
  name: "Context",
  /** Boolean or enum. */
  kind: "enum",
  /** Allowed values (all strings). */
  values: ["200k", "1m"],
};
const THINKING: CatalogParameter = {
  /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
  id: "thinking",
  /** Name shown in pickers. */
  name: "Thinking",
  /** Boolean or enum. */
  kind: "boolean",
  /** Allowed values (all strings). */
  values: ["true", "false"],
};

function variant(
  /** Selectable parameters. */
  parameters: Record<string, string>,
  /** Name shown in pickers. */
  displayName: string,
  /** Offers max mode. */
  maxMode: boolean,
  extra: { defaultMax?: boolean; defaultNonMax?: boolean } = {},
): CatalogVariant {
  return { parameters, displayName, maxMode, ...extra };
}

function sonnet(): CatalogModel {
  return {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "claude-4.5-sonnet",
    /** Name shown in pickers. */
    displayName: "Sonnet 4.5",
    thinking: true,
    /** `ThinkingStyle` enum value sent with thinking deltas (0 unspecified, 1 default, 2 codex, 3 GPT-5). */
    thinkingStyle: ThinkingStyle.DEFAULT,
    /** Accepts image input. */
    images: true,
    /** Offers max mode. */
    maxMode: true,
    /** Offers non-max mode. */
    nonMaxMode: true,
    contextTokens: 200_000,
    /** Selectable parameters. */
    parameters: [THINKING, CONTEXT],
    /** Advertised parameter tuples. */
    variants: [
      variant({ thinking: "false", context: "200k" }, "Sonnet 4.5", false, { defaultNonMax: true }),
      variant({ thinking: "true", context: "200k" }, "Sonnet 4.5 Thinking", false),
      variant({ thinking: "false", context: "1m" }, "Sonnet 4.5 1M", true),
      variant({ thinking: "true", context: "1m" }, "Sonnet 4.5 Thinking 1M", true, {
        defaultMax: true,
      }),
    ],
  };
}

function opus(): CatalogModel {
  const effort: CatalogParameter = {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "effort",
    /** Name shown in pickers. */
    name: "Effort",
    /** Boolean or enum. */
    kind: "enum",
    /** Allowed values (all strings). */
    values: ["low", "medium", "high"],
  };
  return {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "claude-4.1-opus",
    /** Name shown in pickers. */
    displayName: "Opus 4.1",
    thinking: true,
    /** `ThinkingStyle` enum value sent with thinking deltas (0 unspecified, 1 default, 2 codex, 3 GPT-5). */
    thinkingStyle: ThinkingStyle.DEFAULT,
    /** Accepts image input. */
    images: true,
    /** Offers max mode. */
    maxMode: true,
    /** Offers non-max mode. */
    nonMaxMode: false,
    contextTokens: 200_000,
    /** Selectable parameters. */
    parameters: [effort],
    /** Advertised parameter tuples. */
    variants: effort.values.map((value) =>
      variant({ effort: value }, `Opus 4.1 ${value}`, true, { defaultMax: value === "high" })
    ),
  };
}

function gpt(): CatalogModel {
  const reasoning: CatalogParameter = {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "reasoning",
    /** Name shown in pickers. */
    name: "Reasoning",
    /** Boolean or enum. */
    kind: "enum",
    /** Allowed values (all strings). */
    values: ["low", "medium", "high"],
  };
  const fast: CatalogParameter = {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "fast",
    /** Name shown in pickers. */
    name: "Fast",
    /** Boolean or enum. */
    kind: "boolean",
    /** Allowed values (all strings). */
    values: ["false", "true"],
  };
  const variants: CatalogVariant[] = [];
  for (const level of reasoning.values) {
    for (const speed of fast.values) {
      const label = `GPT-5 ${level}${speed === "true" ? " Fast" : ""}`;
      variants.push(variant({ reasoning: level, fast: speed }, label, false, {
        defaultNonMax: level === "medium" && speed === "false",
      }));
    }
  }
  return {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "gpt-5",
    /** Name shown in pickers. */
    displayName: "GPT-5",
    thinking: true,
    /** `ThinkingStyle` enum value sent with thinking deltas (0 unspecified, 1 default, 2 codex, 3 GPT-5). */
    thinkingStyle: ThinkingStyle.GPT5,
    /** Accepts image input. */
    images: true,
    /** Offers max mode. */
    maxMode: false,
    /** Offers non-max mode. */
    nonMaxMode: true,
    contextTokens: 272_000,
    /** Selectable parameters. */
    parameters: [reasoning, fast],
    variants,
  };
}

function gemini(): CatalogModel {
  const context: CatalogParameter = { ...CONTEXT, values: ["200k", "500k"] };
  return {
    /** Parameter id (`effort`, `thinking`, `fast`, `context`, …). */
    id: "gemini-2.5-pro",
    /** Name shown in pickers. */
    displayName: "Gemini 2.5 Pro",
    thinking: true,
    /** `ThinkingStyle` enum value sent with thinking deltas (0 unspecified, 1 default, 2 codex, 3 GPT-5). */
    thinkingStyle: ThinkingStyle.DEFAULT,
    /** Accepts image input. */
    images: true,
    /** Offers max mode. */
    maxMode: true,
    /** Offers non-max mode. */
    nonMaxMode: true,
    contextTokens: 200_000,
    /** Selectable parameters. */
    parameters: [context],
    /** Advertised parameter tuples. */
    variants: [
      variant({ context: "200k" }, "Gemini 2.5 Pro", false, { defaultNonMax: true }),
      variant({ context: "500k" }, "Gemini 2.5 Pro 500K", true, { defaultMax: true }),
    ],
  };
}

function plain(id: string, displayName: string, contextTokens: number): CatalogModel {
  return {
    id,
    displayName,
    thinking: false,
    /** `ThinkingStyle` enum value sent with thinking deltas (0 unspecified, 1 default, 2 codex, 3 GPT-5). */
    thinkingStyle: ThinkingStyle.UNSPECIFIED,
    /** Accepts image input. */
    images: false,
    /** Offers max mode. */
    maxMode: false,
    /** Offers non-max mode. */
    nonMaxMode: true,
    contextTokens,
    /** Selectable parameters. */
    parameters: [],
    /** Advertised parameter tuples. */
    variants: [],
  };
}

/**
 * The built-in catalogue. Model ids: `default` (Auto, the default), `claude-4.5-sonnet`
 * (thinking on/off, 200k or 1M context; 1M is max mode; images), `claude-4.1-opus`
 * (effort low/medium/high; max mode only; images), `gpt-5` (reasoning
 * low/medium/high × fast; images), `gemini-2.5-pro` (200k, or 500k in max mode; images),
 * `composer-1` (no thinking, no images).
 *
 * @returns A fresh copy of the catalogue.
 *
 * @example
 * ```ts
 * import { defaultCatalog } from "../../mod.ts";
 *
 * const ids = defaultCatalog().map((model) => model.id);
 * console.assert(ids.includes("claude-4.5-sonnet") && ids.includes("gpt-5"));
 * ```
 */
export function defaultCatalog(): CatalogModel[] {
  return [
    plain(DEFAULT_MODEL_ID, "Auto", 200_000),
    sonnet(),
    opus(),
    gpt(),
    gemini(),
    plain("composer-1", "Composer 1", 200_000),
  ];
}
