/**
 * The layering rules of the source tree, as data, and a checker that applies them to
 * a set of files. The architecture test runs the checker over the real tree and over
 * deliberately bad samples, so a rule that stops catching violations fails too.
 *
 * @module
 */

/** The layers, lowest first. A file may import its own layer or any lower one. */
export const LAYER_RANKS: Readonly<Record<string, number>> = {
  "src/core": 0,
  "src/gen": 1,
  "src/protocol": 1,
  "src/billing": 1,
  "src/transport": 2,
  "src/auth": 2,
  "src/agent-run": 3,
  "src/conversation": 3,
  "src/snapshot": 3,
  "src/cli": 3,
  "src/catalog": 3,
  "src/provider": 4,
  "src/doctor": 4,
  "src/adapters": 5,
  "src/testing": 6,
  "entry": 7,
  "stores": 7,
  "plugin": 8,
};

/**
 * Store adapters behind their own optional entries (`./stores/redis`, `./stores/deno-kv`,
 * `./stores/cloudflare`, `./stores/upstash`):
 * only their entry and their own folder import them, so an app that uses none never loads
 * a store client.
 */
export const OPTIONAL_STORE_FOLDERS: readonly string[] = [
  "src/adapters/redis/",
  "src/adapters/deno/",
  "src/adapters/cloudflare/",
  "src/adapters/upstash/",
];

/** Optional peer packages and the one folder that may import each. */
export const OPTIONAL_PEER_PACKAGES: Readonly<Record<string, string>> = {
  redis: "src/adapters/redis/",
};

/** Folders whose files may use runtime-specific APIs (`node:`, `Deno.`, `Bun.`). */
export const RUNTIME_API_FOLDERS: readonly string[] = [
  "src/adapters/",
  "src/testing/adapters/",
];

/** Web-standard entry points: they may not import adapters even though entries rank high. */
export const WEB_STANDARD_ENTRIES: readonly string[] = ["mod.ts", "v4.ts"];

/** The adapters web-standard entries may use (they read only web-standard or guarded globals). */
export const WEB_ADAPTERS = "src/adapters/web/";

/** One rule violation. */
export interface Violation {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** Which layer a repository-relative path belongs to, or undefined for files outside the layers. */
export function layerOf(path: string): string | undefined {
  if (!path.includes("/")) return path.endsWith(".ts") ? "entry" : undefined;
  for (const layer of Object.keys(LAYER_RANKS)) {
    if (path.startsWith(`${layer}/`)) return layer;
  }
  return undefined;
}

const IMPORT_PATTERN =
  /(?:^|\s)(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;
const RUNTIME_GLOBAL = /\b(Deno|Bun)\.[A-Za-z]/;

/**
 * Checks one file's source against the layering rules.
 *
 * @param path Repository-relative path of the file (e.g. `src/protocol/envelope.ts`).
 * @param source Its text.
 * @returns The violations found.
 */
export function checkFile(path: string, source: string): Violation[] {
  const layer = layerOf(path);
  if (layer === undefined) return [];
  const violations: Violation[] = [];
  const runtimeAllowed = RUNTIME_API_FOLDERS.some((folder) => path.startsWith(folder));
  const lines = source.split("\n");
  lines.forEach((text, index) => {
    if (!runtimeAllowed && RUNTIME_GLOBAL.test(stripComment(text))) {
      violations.push({ file: path, line: index + 1, message: "uses a runtime-specific global" });
    }
  });
  const code = lines.map(stripComment).join("\n");
  for (const match of code.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2] ?? "";
    const line = code.slice(0, match.index).split("\n").length;
    const problem = checkImport(path, layer, specifier, runtimeAllowed);
    if (problem) violations.push({ file: path, line, message: problem });
  }
  return violations;
}

function checkImport(
  path: string,
  layer: string,
  specifier: string,
  runtimeAllowed: boolean,
): string | undefined {
  if (
    /^(node:|bun:|deno:)/.test(specifier) ||
    /^(fs|path|os|child_process|http2?|net|tls)$/.test(specifier)
  ) {
    return runtimeAllowed ? undefined : `imports runtime module ${JSON.stringify(specifier)}`;
  }
  if (!specifier.startsWith(".")) {
    const peerFolder =
      OPTIONAL_PEER_PACKAGES[specifier.replace(/^npm:/, "").split(/[/@]/)[0] ?? ""];
    if (peerFolder !== undefined && !path.startsWith(peerFolder)) {
      return `imports the optional peer ${JSON.stringify(specifier)} outside ${peerFolder}`;
    }
    return undefined;
  }
  const target = resolveRelative(path, specifier);
  const store = OPTIONAL_STORE_FOLDERS.find((folder) => target.startsWith(folder));
  if (store !== undefined && layer !== "stores" && !path.startsWith(store)) {
    return `imports the optional store adapter ${JSON.stringify(target)} outside its entry`;
  }
  const targetLayer = layerOf(target);
  if (targetLayer === undefined) {
    return `imports ${JSON.stringify(target)}, which is outside every layer`;
  }
  if (
    WEB_STANDARD_ENTRIES.includes(path) && targetLayer === "src/adapters" &&
    !target.startsWith(WEB_ADAPTERS)
  ) {
    return `web-standard entry imports adapter ${JSON.stringify(target)}`;
  }
  const from = LAYER_RANKS[layer] ?? 0;
  const to = LAYER_RANKS[targetLayer] ?? 0;
  if (to > from) {
    return `layer ${layer} imports higher layer ${targetLayer} (${JSON.stringify(target)})`;
  }
  if (targetLayer === "src/testing" && layer !== "src/testing" && layer !== "entry") {
    return `imports the emulator ${JSON.stringify(target)}`;
  }
  return undefined;
}

function resolveRelative(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}

function stripComment(line: string): string {
  const trimmed = line.trimStart();
  if (trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")) return "";
  return line;
}
