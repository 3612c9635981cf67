/** Derives the npm package manifest from package.json and the deno.json exports. @module */

type Json = Record<string, unknown>;

/** Node and Bun load the entry with the Node adapters wired in; other runtimes the web one. */
const NODE_FLAVOURED: Readonly<Record<string, string>> = {
  ".": "./node.ts",
  "./v4": "./node-v4.ts",
};

/**
 * Builds `npm/package.json`.
 *
 * @param root The root package.json.
 * @param exports The deno.json `exports` map (subpath → `.ts` file).
 * @returns The manifest object.
 */
export function npmManifest(root: Json, exports: Record<string, string>): Json {
  const map: Record<string, unknown> = {};
  for (const [subpath, file] of Object.entries(exports)) {
    const web = target(file);
    const nodeFile = NODE_FLAVOURED[subpath];
    map[subpath] = nodeFile === undefined
      ? web
      : { bun: target(nodeFile), node: target(nodeFile), default: web };
  }
  return {
    name: root.name,
    version: root.version,
    description: root.description,
    license: root.license,
    type: "module",
    engines: root.engines,
    exports: map,
    ...(root.bin === undefined ? {} : { bin: root.bin }),
    main: "./node.js",
    types: "./node.d.ts",
    dependencies: root.dependencies,
    // Store clients (`redis` for `./stores/redis`): optional, installed by the apps using them.
    ...(root.peerDependencies === undefined ? {} : {
      peerDependencies: root.peerDependencies,
      peerDependenciesMeta: root.peerDependenciesMeta,
    }),
    keywords: ["ai-sdk", "cursor", "opencode", "provider", "llm"],
  };
}

function target(file: string): { types: string; default: string } {
  const base = file.replace(/^\.\//, "./").replace(/\.ts$/, "");
  return { types: `${base}.d.ts`, default: `${base}.js` };
}
