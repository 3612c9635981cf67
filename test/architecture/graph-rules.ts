/**
 * Rules beyond "imports go down": no import cycles (type-only imports included), no
 * imports between same-rank layers or between sibling backend folders under
 * src/provider, which npm packages each layer may use, and where scripts/ and test/ sit
 * (they may import src; src never imports them; scripts never import test).
 *
 * Each rule works on paths and source text only, so the architecture test can feed it
 * fake files that must be flagged.
 *
 * @module
 */
import { LAYER_RANKS, layerOf, type Violation } from "./layers.ts";

/** Same-rank layer pairs that may import (`from` → `to`): generated code, and auth's unary calls. */
export const SAME_RANK_ALLOWED: readonly (readonly [string, string])[] = [
  ["src/protocol", "src/gen"],
  ["src/auth", "src/transport"],
  ["src/conversation", "src/agent-run"],
  ["src/snapshot", "src/agent-run"],
  ["src/snapshot", "src/conversation"],
];

/** Folders under src/provider that every backend folder may import (shared, not a backend). */
export const SHARED_PROVIDER_FOLDERS: readonly string[] = [
  "tools",
  "model-call",
  "settings",
  "public",
  "v4",
];

/** The lowest layer rank allowed to import each npm package (others: any layer but core). */
export const PACKAGE_FLOORS: Readonly<Record<string, number>> = {
  "@bufbuild/protobuf": LAYER_RANKS["src/protocol"] ?? 1,
  "@ai-sdk/provider": LAYER_RANKS["src/provider"] ?? 4,
  "@ai-sdk/provider-v4": LAYER_RANKS["src/provider"] ?? 4,
};

/**
 * Layers allowed to import a package below its floor, while code moves: src/cli (rank 3)
 * uses `@ai-sdk/provider` types and is becoming src/provider/cli.
 */
export const PACKAGE_FLOOR_EXCEPTIONS: Readonly<Record<string, readonly string[]>> = {
  "@ai-sdk/provider": ["src/cli"],
};

/** One import in a file. */
export interface ImportRef {
  readonly specifier: string;
  /** Repository-relative target for a relative specifier. */
  readonly target: string | undefined;
  readonly line: number;
}

const IMPORT_PATTERN =
  /(?:^|\s)(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|(?:^|\s)import\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/gm;

/** The imports of one file (comment lines ignored). */
export function importsOf(path: string, source: string): ImportRef[] {
  const code = source.split("\n").map((line) => {
    const trimmed = line.trimStart();
    return trimmed.startsWith("//") || trimmed.startsWith("*") || trimmed.startsWith("/*")
      ? ""
      : line;
  }).join("\n");
  const refs: ImportRef[] = [];
  for (const match of code.matchAll(IMPORT_PATTERN)) {
    const specifier = match[1] ?? match[2] ?? match[3] ?? "";
    const line = code.slice(0, match.index).split("\n").length;
    const target = specifier.startsWith(".") ? resolve(path, specifier) : undefined;
    refs.push({ specifier, target, line });
  }
  return refs;
}

/**
 * Import cycles among the given files, each as its files in import order (first repeated
 * at the end), found as strongly connected components.
 */
export function findCycles(files: ReadonlyMap<string, string>): string[][] {
  const edges = new Map<string, string[]>();
  for (const [path, source] of files) {
    const targets = importsOf(path, source).flatMap((ref) =>
      ref.target !== undefined && files.has(ref.target) ? [ref.target] : []
    );
    edges.set(path, [...new Set(targets)].sort());
  }
  const cycles: string[][] = [];
  for (const component of stronglyConnected(edges)) {
    const first = component[0];
    if (first === undefined) continue;
    const selfLoop = edges.get(first)?.includes(first) ?? false;
    if (component.length > 1 || selfLoop) cycles.push(cyclePath(first, new Set(component), edges));
  }
  return cycles;
}

/** Checks one file against the package, same-rank, sibling and scripts/test rules. */
export function checkPlacement(path: string, source: string): Violation[] {
  const violations: Violation[] = [];
  for (const ref of importsOf(path, source)) {
    const problem = placementProblem(path, ref);
    if (problem) violations.push({ file: path, line: ref.line, message: problem });
  }
  return violations;
}

function placementProblem(path: string, ref: ImportRef): string | undefined {
  const area = areaOf(path);
  if (ref.target === undefined) return packageProblem(path, ref.specifier);
  const targetArea = areaOf(ref.target);
  if (area === "product" && (targetArea === "scripts" || targetArea === "test")) {
    return `product code imports ${targetArea}/ (${JSON.stringify(ref.target)})`;
  }
  if (area === "scripts" && targetArea === "test") {
    return `a script imports test/ (${JSON.stringify(ref.target)})`;
  }
  if (area !== "product") return undefined;
  return sameRankProblem(path, ref.target) ?? siblingProblem(path, ref.target);
}

function packageProblem(path: string, specifier: string): string | undefined {
  if (areaOf(path) !== "product" || /^(node|bun|deno|npm|jsr):/.test(specifier)) return undefined;
  const layer = layerOf(path);
  if (layer === undefined) return undefined;
  const name = specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : specifier.split("/")[0] ?? specifier;
  if (layer === "src/core") return `core imports npm package ${JSON.stringify(name)}`;
  const floor = PACKAGE_FLOORS[name];
  const rank = LAYER_RANKS[layer] ?? 0;
  if (floor === undefined || rank >= floor) return undefined;
  if (PACKAGE_FLOOR_EXCEPTIONS[name]?.includes(layer)) return undefined;
  return `layer ${layer} imports ${JSON.stringify(name)}, allowed from rank ${floor} up`;
}

function sameRankProblem(path: string, target: string): string | undefined {
  const from = layerOf(path);
  const to = layerOf(target);
  if (from === undefined || to === undefined || from === to) return undefined;
  if (LAYER_RANKS[from] !== LAYER_RANKS[to]) return undefined;
  if (SAME_RANK_ALLOWED.some(([a, b]) => a === from && b === to)) return undefined;
  return `layer ${from} imports same-rank layer ${to} (${JSON.stringify(target)})`;
}

function siblingProblem(path: string, target: string): string | undefined {
  const from = providerFolder(path);
  const to = providerFolder(target);
  if (from === undefined || to === undefined || from === to) return undefined;
  // Shared folders stand where the provider's top files do: any folder may use them, and
  // they may name a backend's types (the public type list, the settings).
  if (SHARED_PROVIDER_FOLDERS.includes(to) || SHARED_PROVIDER_FOLDERS.includes(from)) {
    return undefined;
  }
  return `src/provider/${from} imports sibling backend folder src/provider/${to} (${
    JSON.stringify(target)
  })`;
}

/** The folder directly under src/provider a file sits in, if any. */
function providerFolder(path: string): string | undefined {
  const match = path.match(/^src\/provider\/([^/]+)\/.+/);
  return match?.[1];
}

function areaOf(path: string): "product" | "scripts" | "test" | "other" {
  if (path.startsWith("scripts/")) return "scripts";
  if (path.startsWith("test/")) return "test";
  return layerOf(path) === undefined ? "other" : "product";
}

function stronglyConnected(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (;;) {
        const top = stack.pop();
        if (top === undefined) break;
        onStack.delete(top);
        component.push(top);
        if (top === node) break;
      }
      components.push(component.sort());
    }
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return components;
}

/** One concrete cycle through `start` inside its component (breadth-first, shortest). */
function cyclePath(
  start: string,
  component: ReadonlySet<string>,
  edges: ReadonlyMap<string, readonly string[]>,
): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() ?? start;
    for (const next of edges.get(node) ?? []) {
      if (!component.has(next)) continue;
      if (next === start) {
        const path = [start];
        for (
          let at: string | undefined = node;
          at !== undefined && at !== start;
          at = previous.get(at)
        ) {
          path.splice(1, 0, at);
        }
        return [...path, start];
      }
      if (!previous.has(next)) {
        previous.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

function resolve(from: string, specifier: string): string {
  const parts = from.split("/").slice(0, -1);
  for (const part of specifier.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  return parts.join("/");
}
