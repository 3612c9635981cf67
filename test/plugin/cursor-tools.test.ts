import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cursorPluginTools, type ToolContextLike } from "../../plugin/cursor-tools.ts";
import { createClassicPlugin } from "../../plugin/classic.ts";
import {
  createImageStagingFile,
  writeFileWithFolders,
} from "../../src/adapters/node/files/image-staging-file.ts";
import { silentLogger } from "../../src/core/logger.ts";

async function inFolder(fn: (dir: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cursor-plugin-tools-"));
  try {
    await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]);

describe("cursor_image_save", () => {
  it("writes the staged bytes exactly, once, after asking the host's edit permission", async () => {
    await inFolder(async (dir) => {
      const staging = createImageStagingFile({ folder: join(dir, "staging") });
      const tools = cursorPluginTools({
        imageStaging: staging,
        writeFile: writeFileWithFolders,
        fetch: () => Promise.reject(new Error("offline")),
        env: {},
      });
      const target = join(dir, "project", "assets", "cat.png");
      const id = staging.stage({ path: target, bytes: PNG });
      assert.equal(statSync(join(dir, "staging", id)).mode & 0o777, 0o600, "owner-only");
      const asked: unknown[] = [];
      const context: ToolContextLike = {
        worktree: join(dir, "project"),
        ask: (request) => Promise.resolve(void asked.push(request)),
      };
      const result = await tools.cursor_image_save?.execute({ image_id: id }, context);
      assert.deepEqual(new Uint8Array(readFileSync(target)), PNG);
      assert.deepEqual(asked, [{
        permission: "edit",
        patterns: ["assets/cat.png"],
        always: ["*"],
        metadata: { filepath: target },
      }]);
      assert.equal(result?.title, "assets/cat.png");
      assert.deepEqual(readdirSync(join(dir, "staging")), [], "nothing left staged");
      await assert.rejects(
        tools.cursor_image_save?.execute({ image_id: id }, context) ?? Promise.resolve(),
        /No generated image is waiting under id ".*"; it was saved already or never staged/,
      );
    });
  });

  it("writes nothing when the person refuses, and rejects ids that are not staged ids", async () => {
    await inFolder(async (dir) => {
      const staging = createImageStagingFile({ folder: join(dir, "staging") });
      const tools = cursorPluginTools({
        imageStaging: staging,
        writeFile: writeFileWithFolders,
        fetch: globalThis.fetch,
        env: {},
      });
      const target = join(dir, "x.png");
      const id = staging.stage({ path: target, bytes: PNG });
      const refuse: ToolContextLike = {
        ask: () => Promise.reject(new Error("The user rejected permission to use this tool")),
      };
      await assert.rejects(
        tools.cursor_image_save?.execute({ image_id: id }, refuse) ?? Promise.resolve(),
        /rejected permission/,
      );
      assert.throws(() => statSync(target), /ENOENT/);
      await assert.rejects(
        tools.cursor_image_save?.execute({ image_id: "../../etc/passwd" }, {}) ??
          Promise.resolve(),
        /No generated image is waiting under id "\.\.\/\.\.\/etc\/passwd"/,
      );
      await assert.rejects(
        tools.cursor_image_save?.execute({}, {}) ?? Promise.resolve(),
        /Tool argument "image_id" must be a non-empty string, got undefined/,
      );
    });
  });
});

describe("custom_websearch", () => {
  it("asks the websearch permission and returns the search text (SSE answer)", async () => {
    const requests: { url: string; body: unknown }[] = [];
    const tools = cursorPluginTools({
      fetch: (url, init) => {
        requests.push({ url: String(url), body: JSON.parse(String(init?.body)) });
        const text =
          'event: message\ndata: {"result":{"content":[{"type":"text","text":"Deno 3 is out"}]}}\n\n';
        return Promise.resolve(new Response(text, { status: 200 }));
      },
      env: { EXA_API_KEY: "k 1" },
    });
    const asked: string[] = [];
    const result = await tools.custom_websearch?.execute({ query: "deno 3" }, {
      ask: (request) => Promise.resolve(void asked.push(request.permission, ...request.patterns)),
    });
    assert.equal(result?.output, "Deno 3 is out");
    assert.deepEqual(asked, ["websearch", "deno 3"]);
    assert.equal(requests[0]?.url, "https://mcp.exa.ai/mcp?exaApiKey=k%201");
    assert.deepEqual(requests[0]?.body, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "web_search_exa",
        arguments: { query: "deno 3", type: "auto", numResults: 8, livecrawl: "fallback" },
      },
    });
  });

  it("says so when nothing was found, and fails clearly on an HTTP error", async () => {
    const empty = cursorPluginTools({
      fetch: () => Promise.resolve(new Response("{}", { status: 200 })),
      env: {},
    });
    assert.equal(
      (await empty.custom_websearch?.execute({ query: "q" }, {}))?.output,
      "No search results found. Please try a different query.",
    );
    const failing = cursorPluginTools({
      fetch: () => Promise.resolve(new Response("busy", { status: 503 })),
      env: {},
    });
    await assert.rejects(
      failing.custom_websearch?.execute({ query: "q" }, {}) ?? Promise.resolve(),
      /Web search for "q" failed with HTTP 503/,
    );
  });
});

describe("the classic entry registers both tools", () => {
  it("so a load without it (v2 only) is missing them", async () => {
    const plugin = createClassicPlugin({
      env: {},
      store: { read: () => Promise.resolve(undefined), write: () => Promise.resolve() },
      storeLocation: "memory",
      fetch: () => Promise.reject(new Error("offline")),
      now: () => 0,
      machineId: () => Promise.resolve("m"),
      readStoredAuth: () => Promise.resolve(undefined),
      openBrowser: () => false,
      logger: silentLogger,
      providerEntry: "file:///pkg/node.js",
    });
    const hooks = await plugin({ client: {} });
    assert.deepEqual(Object.keys(hooks.tool ?? {}).sort(), [
      "cursor_image_save",
      "custom_websearch",
    ]);
  });
});
