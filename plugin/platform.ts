/**
 * The Node/Bun pieces every plugin entry wires in: environment, the model cache file,
 * fetch, clock, machine id, browser opener, stored credentials, the debug log and the
 * provider entry that sits next to the plugin.
 *
 * @module
 */
import { createFileDebugLogger } from "../src/adapters/node/files/debug-log-file.ts";
import { machineId, processEnvironment } from "../src/adapters/node/machine.ts";
import { createModelCacheFile } from "../src/adapters/node/files/model-cache-file.ts";
import { openBrowser } from "../src/adapters/node/process/open-browser.ts";
import { readOpenCodeAuth } from "../src/adapters/node/opencode-host.ts";
import {
  createImageStagingFile,
  writeFileWithFolders,
} from "../src/adapters/node/files/image-staging-file.ts";
import type { ClassicPluginDependencies } from "./classic.ts";
import { CURSOR_PROVIDER_ID } from "./settings.ts";

/**
 * The provider entry next to a plugin module (`node.js` in the built package, `node.ts`
 * in a source checkout) as a `file://` URL OpenCode imports without installing anything.
 *
 * @param moduleUrl `import.meta.url` of a module in the `plugin/` folder.
 * @returns The URL of the provider entry.
 *
 * @example
 * ```ts
 * import { providerEntryUrl } from "./platform.ts";
 *
 * console.assert(providerEntryUrl("file:///pkg/plugin/mod.js") === "file:///pkg/node.js");
 * ```
 */
export function providerEntryUrl(moduleUrl: string): string {
  return new URL(moduleUrl.endsWith(".ts") ? "../node.ts" : "../node.js", moduleUrl).href;
}

/**
 * The platform dependencies for a plugin entry.
 *
 * @param moduleUrl `import.meta.url` of the entry.
 * @returns Dependencies for {@link ClassicPluginDependencies} (and the v2 entries).
 */
export function nodePlatform(moduleUrl: string): ClassicPluginDependencies {
  const env = processEnvironment();
  const store = createModelCacheFile({ env });
  return {
    env,
    store,
    storeLocation: store.path,
    fetch: (request, init) => globalThis.fetch(request, init),
    now: Date.now,
    machineId,
    readStoredAuth: () => readOpenCodeAuth(CURSOR_PROVIDER_ID, env),
    openBrowser: (url) => openBrowser(url, { env }),
    logger: createFileDebugLogger({ env, announce: () => {} }),
    providerEntry: providerEntryUrl(moduleUrl),
    imageStaging: createImageStagingFile({ env }),
    writeFile: writeFileWithFolders,
  };
}
