/**
 * One public surface for the four provider entries (src/provider/public/public-types.ts), and
 * messages that name the package as each registry's users import it.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { LanguageModelV4CallOptions } from "@ai-sdk/provider-v4";
import * as web from "../../../mod.ts";
import type * as Web from "../../../mod.ts";
import type * as Node from "../../../node.ts";
import type * as WebV4 from "../../../v4.ts";
import type * as NodeV4 from "../../../node-v4.ts";
import * as webV4 from "../../../v4.ts";
import { JSR_NAMES, NPM_NAMES, PUBLISHED_AS } from "../../../src/core/package-name.ts";
import { useNpmNames } from "../../../scripts/lib/registry-names.ts";

/** `true` only when `A` and `B` are the same type. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// The store and call types every entry must name (the /v4 entries once lacked them).
const storeTypes: [
  Same<Web.VersionedSnapshotStore, WebV4.VersionedSnapshotStore>,
  Same<Node.SnapshotWrite, NodeV4.SnapshotWrite>,
  Same<Web.SnapshotWriteOptions, NodeV4.SnapshotWriteOptions>,
  Same<Node.CursorCallInput, WebV4.CursorCallInput>,
  Same<Web.ReasoningLevel, NodeV4.ReasoningLevel>,
  Same<WebV4.ReasoningLevel, NonNullable<LanguageModelV4CallOptions["reasoning"]>>,
] = [true, true, true, true, true, true];

/** Tests run from the repository root on every runtime (bundled copies live elsewhere). */
const readJson = async (file: string) =>
  JSON.parse(await readFile(join(process.cwd(), file), "utf8")) as { name: string };

describe("the public surface", () => {
  it("every provider entry names the same shared types (checked when this file compiles)", () => {
    assert.ok(storeTypes.every(Boolean));
  });

  it("the name sets are the registries' names", async () => {
    assert.equal(JSR_NAMES.name, (await readJson("deno.json")).name);
    assert.equal(NPM_NAMES.name, (await readJson("package.json")).name);
    assert.equal(JSR_NAMES.nodeEntry, `jsr:${JSR_NAMES.name}/node`);
    assert.equal(NPM_NAMES.nodeEntry, `${NPM_NAMES.name}/node`);
  });

  it("the sources (the JSR package) name the JSR Node entry in their messages", () => {
    assert.equal(PUBLISHED_AS, JSR_NAMES);
    const refusals = [
      () => web.createCursor({ accessToken: "t", transport: "http2", env: {} }),
      () => webV4.createCursor({ accessToken: "t", backend: "cli", env: {} }),
    ];
    for (const refuse of refusals) {
      assert.throws(refuse, (error: Error) => {
        assert.match(error.message, /import from "jsr:@ai-sdk-cursor\/provider\/node"/);
        assert.doesNotMatch(error.message, /ai-sdk-provider-cursor/);
        return true;
      });
    }
  });

  it("the npm build's rewrite picks the npm names, once, or fails the build", () => {
    const compiled = "export const JSR_NAMES = {};\nexport const PUBLISHED_AS = JSR_NAMES;\n";
    assert.equal(
      useNpmNames(compiled),
      "export const JSR_NAMES = {};\nexport const PUBLISHED_AS = NPM_NAMES;\n",
    );
    assert.throws(() => useNpmNames("export const PUBLISHED_AS = JSR;\n"), /found 0/);
  });
});
