import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createModelCacheFile } from "../../src/adapters/node/files/model-cache-file.ts";
import { browserCommand, openBrowser } from "../../src/adapters/node/process/open-browser.ts";
import {
  openCodeAuthPath,
  openCodeCacheRoot,
  readOpenCodeAuth,
} from "../../src/adapters/node/opencode-host.ts";
import { providerEntryUrl } from "../../plugin/platform.ts";

async function withTempDir(body: (dir: string) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "cursor-plugin-test-"));
  try {
    await body(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe("OpenCode host paths", () => {
  it("follows XDG variables, else the home folder", () => {
    assert.equal(
      openCodeCacheRoot({ XDG_CACHE_HOME: "/x/cache", HOME: "/h" }),
      "/x/cache/opencode",
    );
    assert.equal(openCodeCacheRoot({ HOME: "/h" }), "/h/.cache/opencode");
    assert.equal(openCodeAuthPath({ XDG_DATA_HOME: "/x/data" }), "/x/data/opencode/auth.json");
    assert.equal(openCodeAuthPath({ HOME: "/h" }), "/h/.local/share/opencode/auth.json");
  });

  it("reads the provider's entry from OPENCODE_AUTH_CONTENT, else auth.json", async () => {
    await withTempDir(async (dir) => {
      const stored = {
        cursor: { type: "api", key: "crsr_file" },
        other: { type: "api", key: "k" },
      };
      await mkdir(join(dir, "opencode"), { recursive: true });
      await writeFile(join(dir, "opencode", "auth.json"), JSON.stringify(stored));
      assert.deepEqual(await readOpenCodeAuth("cursor", { XDG_DATA_HOME: dir }), stored.cursor);
      assert.deepEqual(
        await readOpenCodeAuth("cursor", {
          XDG_DATA_HOME: dir,
          OPENCODE_AUTH_CONTENT: JSON.stringify({ cursor: { type: "api", key: "crsr_env" } }),
        }),
        { type: "api", key: "crsr_env" },
      );
      assert.equal(
        await readOpenCodeAuth("cursor", { XDG_DATA_HOME: join(dir, "none") }),
        undefined,
      );
      assert.equal(
        await readOpenCodeAuth("cursor", { OPENCODE_AUTH_CONTENT: "{not json" }),
        undefined,
      );
    });
  });
});

describe("model cache file", () => {
  it("lives at <cache root>/cursor-models.json and writes atomically", async () => {
    await withTempDir(async (dir) => {
      const store = createModelCacheFile({ env: { XDG_CACHE_HOME: dir } });
      assert.equal(store.path, join(dir, "opencode", "cursor-models.json"));
      assert.equal(await store.read(), undefined);
      await store.write("first");
      await store.write("second");
      assert.equal(await readFile(store.path, "utf8"), "second");
      assert.equal(await store.read(), "second");
      assert.deepEqual(await readdir(join(dir, "opencode")), ["cursor-models.json"]);
    });
  });
});

describe("browser opener", () => {
  it("opens only where a browser can be shown", () => {
    const url = "https://cursor.com/loginDeepControl?a=1&b=2";
    assert.deepEqual(browserCommand(url, { platform: "darwin", env: {} }), ["open", [url]]);
    assert.deepEqual(browserCommand(url, { platform: "linux", env: { DISPLAY: ":0" } }), [
      "xdg-open",
      [url],
    ]);
    assert.equal(browserCommand(url, { platform: "linux", env: {} }), undefined);
    assert.deepEqual(
      browserCommand(url, { platform: "win32", env: {} })?.[1].at(-1),
      url.replace(/&/g, "^&"),
    );
    assert.deepEqual(
      browserCommand(url, { platform: "linux", env: { BROWSER: "/usr/bin/fake" } }),
      ["/usr/bin/fake", [url]],
    );
    assert.equal(browserCommand(url, { platform: "darwin", env: { BROWSER: "none" } }), undefined);
  });

  it("never throws", () => {
    const launched: string[] = [];
    assert.equal(
      openBrowser("u", { platform: "darwin", env: {}, launch: (c) => void launched.push(c) }),
      true,
    );
    assert.deepEqual(launched, ["open"]);
    assert.equal(
      openBrowser("u", {
        platform: "darwin",
        env: {},
        launch: () => {
          throw new Error("ENOENT");
        },
      }),
      false,
    );
  });
});

describe("provider entry next to the plugin", () => {
  it("points at node.js in the build and node.ts in the sources", () => {
    assert.equal(providerEntryUrl("file:///p/npm/plugin/mod.js"), "file:///p/npm/node.js");
    assert.equal(providerEntryUrl("file:///p/plugin/mod.ts"), "file:///p/node.ts");
  });
});
