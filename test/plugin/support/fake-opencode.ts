/**
 * A fake OpenCode for the plugin tests: the SDK client slice the plugin calls (recording
 * saved logins and log lines) and the classic plugin wired to an in-process emulator.
 *
 * @module
 */
import { createMemoryLogger } from "../../../src/core/logger.ts";
import type { ModelCacheStore } from "../../../src/catalog/model-cache.ts";
import { type ClassicPluginDependencies, createClassicPlugin } from "../../../plugin/classic.ts";
import type { ClassicHooks, OpenCodeClientLike } from "../../../plugin/host-types.ts";
import {
  EMULATOR_ORIGIN,
  emulatorWithFetch,
  type FetchedEmulator,
} from "../../auth/support/emulator-fetch.ts";
import type { EmulatorOptions } from "../../../src/testing/mod.ts";

/** A saved login, as the plugin sent it to OpenCode. */
export interface SavedLogin {
  readonly id: string;
  readonly body: { type: "oauth"; refresh: string; access: string; expires: number };
}

/** A memory store that counts writes. */
export interface MemoryStore extends ModelCacheStore {
  text: string | undefined;
  writes: number;
}

/** Creates a memory store. */
export function memoryStore(initial?: string): MemoryStore {
  const store: MemoryStore = {
    text: initial,
    writes: 0,
    read: () => Promise.resolve(store.text),
    write: (text) => {
      store.text = text;
      store.writes++;
      return Promise.resolve();
    },
  };
  return store;
}

/** Everything a plugin test needs. */
export interface PluginHarness extends FetchedEmulator {
  readonly hooks: ClassicHooks;
  readonly store: MemoryStore;
  readonly saved: SavedLogin[];
  readonly logs: { level: string; message: string }[];
  readonly debugLines: string[];
  readonly opened: string[];
  /** Replaces what `readStoredAuth` returns. */
  setStoredAuth(value: unknown): void;
}

/** Options of {@link pluginHarness}. */
export interface HarnessOptions {
  readonly emulator?: EmulatorOptions;
  readonly store?: MemoryStore;
  readonly storedAuth?: unknown;
  readonly now?: () => number;
  readonly pluginOptions?: Record<string, unknown>;
  /** The browser "visits" the login page (default true). */
  readonly browser?: boolean;
  readonly env?: Record<string, string | undefined>;
  /** Answers OpenCode's session lookup (`GET /session/{id}`). */
  readonly sessions?: (id: string) => Promise<{ data?: unknown; error?: unknown }>;
  /** The directory of the plugin instance (OpenCode starts one per project). */
  readonly directory?: string;
}

/** Provider entry the tests expect to be registered. */
export const PROVIDER_ENTRY = "file:///opt/ai-sdk-provider-cursor/node.js";

/**
 * Builds the classic plugin against an in-process emulator.
 *
 * @param options Emulator, store, stored credentials and clock.
 * @returns The hooks and the recorders.
 */
export async function pluginHarness(options: HarnessOptions = {}): Promise<PluginHarness> {
  const fetched = await emulatorWithFetch(options.emulator ?? {});
  const store = options.store ?? memoryStore();
  const saved: SavedLogin[] = [];
  const logs: { level: string; message: string }[] = [];
  const opened: string[] = [];
  const { logger, lines } = createMemoryLogger();
  let storedAuth = options.storedAuth;
  const sessions = options.sessions;
  const client: OpenCodeClientLike = {
    auth: {
      set(request) {
        saved.push({ id: request.path.id, body: request.body });
        return Promise.resolve({});
      },
    },
    app: {
      log(request) {
        logs.push({ level: request.body.level, message: request.body.message });
        return Promise.resolve({});
      },
    },
    ...(sessions === undefined ? {} : {
      session: { get: (request: { path: { id: string } }) => sessions(request.path.id) },
    }),
  };
  const deps: ClassicPluginDependencies = {
    env: {
      CURSOR_API_BASE_URL: EMULATOR_ORIGIN,
      CURSOR_WEBSITE_URL: EMULATOR_ORIGIN,
      ...options.env,
    },
    store,
    storeLocation: "/cache/opencode/cursor-models.json",
    fetch: fetched.fetch,
    now: options.now ?? Date.now,
    machineId: () => Promise.resolve("c".repeat(64)),
    readStoredAuth: () => Promise.resolve(storedAuth),
    openBrowser(url) {
      opened.push(url);
      if (options.browser === false) return false;
      void fetched.fetch(url).then((response) => response.body?.cancel());
      return true;
    },
    logger,
    providerEntry: PROVIDER_ENTRY,
    sleep: () => new Promise((resolve) => setTimeout(resolve, 1)),
  };
  const input = options.directory === undefined
    ? { client }
    : { client, directory: options.directory };
  const hooks = await createClassicPlugin(deps)(input, options.pluginOptions);
  return {
    ...fetched,
    hooks,
    store,
    saved,
    logs,
    debugLines: lines,
    opened,
    setStoredAuth(value) {
      storedAuth = value;
    },
  };
}
