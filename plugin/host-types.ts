/**
 * The parts of OpenCode's plugin APIs this plugin uses, as structural types. The entries
 * are typed against these instead of importing `@opencode-ai/plugin`, so the published
 * package has no type dependency on one OpenCode release; `test/plugin/conformance.test.ts`
 * checks at compile time that the entries still fit the real `Plugin` types.
 *
 * @module
 */
import type { PluginToolLike } from "./cursor-tools.ts";

/** A browser login as OpenCode stores it. */
export interface OAuthCredentialsLike {
  /** Always `oauth`. */
  type: "oauth";
  /** The refresh token. */
  refresh: string;
  /** The access token. */
  access: string;
  /** When the access token expires (epoch ms). */
  expires: number;
}

/** The request that saves a login (`client.auth.set`). */
export interface SaveLoginRequest {
  /** The provider id. */
  path: { id: string };
  /** The credentials to store. */
  body: OAuthCredentialsLike;
}

/** A log line sent to OpenCode's log (`client.app.log`). */
export interface LogRequest {
  /** Who logs, its level and the text. */
  body: {
    service: string;
    level: "debug" | "info" | "warn" | "error";
    message: string;
  };
}

/** The slice of OpenCode's SDK client the classic plugin calls. */
export interface OpenCodeClientLike {
  /** Stores credentials (used to save renewed logins). */
  readonly auth?: { set(options: SaveLoginRequest): Promise<unknown> };
  /** Writes to OpenCode's log (used for catalogue and sign-in messages). */
  readonly app?: { log(options: LogRequest): Promise<unknown> };
  /** Looks sessions up (used to read a session's permission rules). */
  readonly session?: SessionClientLike;
}

/** The session lookup of OpenCode's client (`GET /session/{id}`). */
export interface SessionClientLike {
  /** Resolves with the session as `data`, or the failure as `error`. */
  get(options: { path: { id: string } }): Promise<{ data?: unknown; error?: unknown }>;
}

/** What OpenCode 1.x passes a classic plugin. */
export interface PluginInputLike {
  /** The SDK client bound to the running OpenCode server. */
  readonly client: OpenCodeClientLike;
  /** The project directory. */
  readonly directory?: string;
}

/** A provider block of opencode.json, as far as this plugin reads and writes it. */
export interface ProviderBlockLike {
  /** Display name. */
  name?: string;
  /** The provider package (a package name or a `file://` URL). */
  npm?: string;
  /** Options passed to the provider factory. */
  options?: Record<string, unknown>;
  /** Model entries by id. */
  models?: Record<string, unknown>;
}

/** The config object the `config` hook receives (and may change). */
export interface ConfigLike {
  /** Provider blocks by provider id. */
  provider?: Record<string, ProviderBlockLike>;
}

/** A text prompt of an auth method. */
export interface AuthPromptLike {
  /** Always `text`. */
  readonly type: "text";
  /** Key of the answer in the inputs. */
  readonly key: string;
  /** The question. */
  readonly message: string;
  /** Shown while empty. */
  readonly placeholder?: string;
  /** Returns an error message for an invalid answer. */
  readonly validate?: (value: string) => string | undefined;
}

/** What an OAuth callback resolves to. */
export type OAuthCallbackResult =
  | ({ type: "success" } & Omit<OAuthCredentialsLike, "type">)
  | { type: "failed" };

/** A started OAuth authorization. */
export interface OAuthAuthorizationLike {
  /** The page to open. */
  url: string;
  /** What to tell the person. */
  instructions: string;
  /** `auto`: the callback finishes by itself (it polls). */
  method: "auto";
  /** Waits for the result. */
  callback(): Promise<OAuthCallbackResult>;
}

/** The browser-login method. */
export interface OAuthMethodLike {
  /** Always `oauth`. */
  readonly type: "oauth";
  /** Shown in the method list. */
  readonly label: string;
  /** Starts a login. */
  authorize(): Promise<OAuthAuthorizationLike>;
}

/** What an API-key authorization resolves to. */
export type ApiKeyResult =
  | { type: "success"; key: string; metadata?: Record<string, string> }
  | { type: "failed" };

/** The API-key method. */
export interface ApiMethodLike {
  /** Always `api`. */
  readonly type: "api";
  /** Shown in the method list; OpenCode then asks for the key itself and stores it. */
  readonly label: string;
}

/** The `auth` hook. */
export interface AuthHookLike {
  /** The provider id the methods sign in to. */
  readonly provider: string;
  /** Turns stored credentials into provider options (called when the provider loads). */
  readonly loader: (
    getAuth: () => Promise<unknown>,
    provider: unknown,
  ) => Promise<Record<string, unknown>>;
  /** The sign-in methods. */
  readonly methods: (OAuthMethodLike | ApiMethodLike)[];
}

/** The `chat.params` hook's input. */
export interface ChatParamsInputLike {
  /** The selected model (at run time it also has `variants`). */
  readonly model: { readonly id: string; readonly providerID: string };
  /** The provider of the model. */
  readonly provider?: { readonly info?: { readonly id?: string } };
  /** The user message (its `model.variant` is the selected variant). */
  readonly message: unknown;
  /** The OpenCode session. */
  readonly sessionID?: string;
  /** The agent making the call (`build`, `plan`, `compaction`, …). */
  readonly agent?: string;
}

/** The `chat.params` hook's output. */
export interface ChatParamsOutputLike {
  /** The per-call provider options (model options merged with the variant's). */
  options: Record<string, unknown>;
}

/** The hooks the classic plugin returns. */
export interface ClassicHooks {
  /** Changes the loaded config (registers the provider and its models). */
  config?: (config: ConfigLike) => Promise<void>;
  /** Sign-in methods and the credentials loader. */
  auth?: AuthHookLike;
  /** Checks the model selection before each request. */
  "chat.params"?: (input: ChatParamsInputLike, output: ChatParamsOutputLike) => Promise<void>;
  /** Plugin tools by name (image save, web search). */
  tool?: Record<string, PluginToolLike>;
}
