/**
 * The parts of OpenCode's v2 plugin context (`@opencode-ai/plugin/v2/promise`) the v2
 * entries use, as structural types (see host-types.ts for why). Fields this plugin
 * writes are typed loosely; what it writes follows the published shapes.
 *
 * @module
 */

/** A model as the v2 AI SDK hooks see it. */
export interface V2ModelLike {
  /** The model id. */
  readonly id: string;
  /** The provider id. */
  readonly providerID: string;
  /** How the model is reached (`{ id, type, package }` for AI SDK models). */
  readonly api?: unknown;
}

/** Input of the `aisdk.sdk` hook: set `sdk` to provide the SDK for a model. */
export interface V2SdkInputLike {
  /** The model the SDK is for. */
  readonly model: V2ModelLike;
  /** The provider package. */
  readonly package: string;
  /** The provider settings. */
  readonly options: Readonly<Record<string, unknown>>;
  /** Set by a hook: the SDK (provider). */
  sdk?: unknown;
}

/** Input of the `aisdk.language` hook: set `language` to provide the model. */
export interface V2LanguageInputLike {
  /** The model. */
  readonly model: V2ModelLike;
  /** The SDK the `sdk` hooks provided. */
  readonly sdk: unknown;
  /** The model's settings (provider settings and request body). */
  readonly options: Readonly<Record<string, unknown>>;
  /** Set by a hook: the language model. */
  language?: unknown;
}

/** The `aisdk` domain. */
export interface V2AisdkLike {
  /** Registers a hook that provides SDKs. */
  readonly sdk: (callback: (input: V2SdkInputLike) => Promise<void> | void) => Promise<unknown>;
  /** Registers a hook that provides language models. */
  readonly language: (
    callback: (input: V2LanguageInputLike) => Promise<void> | void,
  ) => Promise<unknown>;
}

/** A stored connection (`ConnectionInfo`). */
export type V2ConnectionLike = V2CredentialConnection | V2EnvConnection;

/** A connection backed by a stored credential. */
export interface V2CredentialConnection {
  /** Always `credential`. */
  type: "credential";
  /** The credential id. */
  id: string;
  /** Display label. */
  label: string;
}

/** A connection backed by an environment variable. */
export interface V2EnvConnection {
  /** Always `env`. */
  type: "env";
  /** The variable's name. */
  name: string;
}

/** A provider record being edited in a catalogue transform. */
export interface V2ProviderInfoLike {
  /** Display name. */
  name: string;
  /** How the provider is reached. */
  api: unknown;
}

/** A model record being edited in a catalogue transform. */
export interface V2ModelInfoLike {
  /** Display name. */
  name: string;
  /** How the model is reached. */
  api: unknown;
  /** Tools and input/output kinds. */
  capabilities: unknown;
  /** Headers and body sent with every request. */
  request: unknown;
  /** Selectable variants. */
  variants: unknown;
  /** Context and output limits. */
  limit: unknown;
  /** Prices in USD per million tokens, one row per context tier (`ModelCost[]`). */
  cost: unknown;
}

/** One price row of a model (`ModelCost`): USD per million tokens, from a context size on. */
export interface V2ModelCost {
  /** Absent for the base row; `{ type: "context", size }` for prompts above `size` tokens. */
  readonly tier?: { readonly type: "context"; readonly size: number };
  /** Uncached input. */
  readonly input: number;
  /** Output (reasoning included). */
  readonly output: number;
  /** Cached input read and written. */
  readonly cache: { readonly read: number; readonly write: number };
}

/** The catalogue draft (`CatalogDraft`). */
export interface V2CatalogDraftLike {
  /** Edits providers. */
  readonly provider: {
    update(providerID: string, update: (provider: V2ProviderInfoLike) => void): void;
  };
  /** Edits models. */
  readonly model: {
    update(providerID: string, modelID: string, update: (model: V2ModelInfoLike) => void): void;
  };
}

/** An integration record being edited. */
export interface V2IntegrationLike {
  /** Display name. */
  name: string;
}

/** Registration of an API-key sign-in method. */
export interface V2KeyMethodRegistration {
  /** The integration id. */
  integrationID: string;
  /** The method: a key the person pastes. */
  method: { type: "key"; label?: string };
}

/** The integration draft (`IntegrationDraft`), for registering the API-key method. */
export interface V2IntegrationDraftLike {
  /** Edits an integration. */
  update(id: string, update: (integration: V2IntegrationLike) => void): void;
  /** Edits the sign-in methods. */
  readonly method: {
    update(input: V2KeyMethodRegistration): void;
  };
}

/** The `integration` domain. */
export interface V2IntegrationDomainLike {
  /** Registers an integration transform. */
  readonly transform: (
    callback: (draft: V2IntegrationDraftLike) => Promise<void> | void,
  ) => Promise<unknown>;
  /** Reads stored connections. */
  readonly connection: {
    /** The active connection of an integration. */
    readonly active: (integrationID: string) => Promise<V2ConnectionLike | undefined>;
    /** The credential behind a connection. */
    readonly resolve: (connection: V2ConnectionLike) => Promise<unknown>;
  };
}

/** The `catalog` domain. */
export interface V2CatalogDomainLike {
  /** Registers a catalogue transform. */
  readonly transform: (
    callback: (draft: V2CatalogDraftLike) => Promise<void> | void,
  ) => Promise<unknown>;
}

/** The v2 plugin context (`PluginContext`), as far as the entries use it. */
export interface V2ContextLike {
  /** The plugin's options from the config. */
  readonly options: Readonly<Record<string, unknown>>;
  /** AI SDK hooks. */
  readonly aisdk: V2AisdkLike;
  /** Integrations (sign-in methods, stored connections). */
  readonly integration: V2IntegrationDomainLike;
  /** The provider and model catalogue. */
  readonly catalog: V2CatalogDomainLike;
}

/** A v2 plugin definition (what `define()` returns). */
export interface V2PluginDefinition {
  /** The plugin id. */
  readonly id: string;
  /** Registers the plugin's hooks. */
  readonly setup: (context: V2ContextLike) => Promise<void>;
}
