import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { findUnused } from "../../../scripts/lib/unused.ts";

/** A small fake tree: one entry, a library module, a test that imports a helper. */
const FILES = new Map<string, string>([
  [
    "mod.ts",
    'export { greet } from "./src/core/greet.ts";\nexport const VERSION = "1";\n',
  ],
  [
    "src/core/greet.ts",
    [
      'import { shout } from "./shout.ts";',
      "export interface GreetOptions { readonly loud: boolean }",
      "export function greet(name: string, options: GreetOptions): string {",
      "  return options.loud ? shout(name) : name;",
      "}",
      "export const FORGOTTEN = 1;",
      "export function leftover(): void {}",
    ].join("\n"),
  ],
  [
    "src/core/shout.ts",
    "export function shout(text: string): string { return text; }\nexport type Loudness = 1;\n",
  ],
  [
    "src/core/lazy.ts",
    "export const loadedLater = 1;\n",
  ],
  [
    "src/core/loader.ts",
    'export const load = () => import("./lazy.ts");\nimport "@scope/used/sub";\n',
  ],
]);

describe("unused exports and dependencies (negative samples)", () => {
  const report = findUnused({
    files: FILES,
    importers: new Map([["test/loader.test.ts", 'import { load } from "../src/core/loader.ts";']]),
    entries: ["./mod.ts"],
    dependencies: ["@scope/used", "left-behind"],
  });

  it("flags exports no other file imports", () => {
    assert.deepEqual(report.exports, [
      "src/core/greet.ts#FORGOTTEN",
      "src/core/greet.ts#leftover",
      "src/core/shout.ts#Loudness",
    ]);
  });

  it("keeps entry exports, re-exported names, types of used signatures and dynamic imports", () => {
    for (const kept of ["mod.ts#VERSION", "greet", "GreetOptions", "loadedLater", "load"]) {
      assert.ok(!report.exports.some((item) => item.endsWith(kept)), kept);
    }
  });

  it("flags a dependency no product file imports, and resolves scoped subpaths", () => {
    assert.deepEqual(report.dependencies, ["left-behind"]);
  });
});
