/**
 * The real OpenCode lists the emulator's catalogue through the classic plugin: the
 * plugin registers the `cursor` provider (no provider block in the config), finds the
 * model cache empty, signs in with the API key stored in auth.json, fetches
 * AvailableModels and writes `cursor-models.json`.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, symlink } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { builtPackage } from "./support/package-build.ts";
import { runOpenCode } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

interface ListedModel {
  id: string;
  name: string;
  providerID: string;
  api: { npm: string };
  limit: { context: number; output: number };
  options: Record<string, unknown>;
  capabilities: { reasoning: boolean; toolcall: boolean; attachment: boolean };
  variants?: Record<string, Record<string, unknown>>;
}

/** Parses `opencode models <provider> --verbose`: an id line, then a JSON object. */
function parseVerbose(stdout: string): Map<string, ListedModel> {
  const models = new Map<string, ListedModel>();
  const pattern = /^cursor\/(\S+)\n(\{[\s\S]*?\n\})/gm;
  for (const match of stdout.matchAll(pattern)) {
    models.set(match[1] ?? "", JSON.parse(match[2] ?? "{}") as ListedModel);
  }
  return models;
}

describe("opencode models cursor (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let listed: Map<string, ListedModel>;
  let stdout = "";

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig({
      $schema: "https://opencode.ai/config.json",
      plugin: [built.plugin],
    });
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_models_key" } });
    const result = await runOpenCode(sandbox, ["models", "cursor", "--verbose"], {
      timeoutMs: 60_000,
    });
    stdout = result.stdout;
    assert.equal(result.timedOut, false, "opencode models timed out");
    assert.equal(result.code, 0, `opencode models failed:\n${result.stderr}`);
    listed = parseVerbose(stdout);
  });

  after(async () => {
    await emulator?.close();
    await sandbox?.remove();
  });

  it("registers the provider from the built package and lists every catalogue entry", () => {
    assert.deepEqual([...listed.keys()].sort(), [
      "claude-4.1-opus",
      "claude-4.5-sonnet",
      "claude-4.5-sonnet-1m",
      "composer-1",
      "default",
      "gemini-2.5-pro",
      "gemini-2.5-pro-500k",
      "gpt-5",
    ], stdout);
    assert.match(listed.get("gpt-5")?.api.npm ?? "", /^file:\/\/.*\/npm\/node\.js$/);
  });

  it("shows variants with their exact parameter tuples", () => {
    const gpt = listed.get("gpt-5");
    assert.deepEqual(Object.keys(gpt?.variants ?? {}), [
      "low",
      "low-fast",
      "medium",
      "medium-fast",
      "high",
      "high-fast",
    ]);
    assert.deepEqual(gpt?.variants?.["high-fast"], {
      cursorVariantParameters: [{ id: "reasoning", value: "high" }, { id: "fast", value: "true" }],
      cursorMaxMode: false,
    });
    assert.equal(gpt?.capabilities.reasoning, true);
    assert.equal(gpt?.capabilities.attachment, true);
  });

  it("lists the -1m entry with the 1M limit, 128k output and Max Mode", () => {
    const long = listed.get("claude-4.5-sonnet-1m");
    assert.equal(long?.name, "Sonnet 4.5 1M");
    assert.deepEqual(long?.limit, { context: 1_000_000, output: 128_000 });
    assert.equal(long?.options.cursorModelId, "claude-4.5-sonnet");
    assert.equal(long?.options.cursorMaxMode, true);
    assert.deepEqual(listed.get("gemini-2.5-pro-500k")?.limit.context, 500_000);
  });

  it("filled the model cache from the stored API key", async () => {
    const cache = JSON.parse(await readFile(sandbox.modelCache, "utf8"));
    assert.equal(cache.schemaVersion, 1);
    assert.equal(cache.models.length, 6);
    assert.ok(emulator.auth.events().some((event) => event.kind === "exchange" && event.ok));
  });
});

describe("the plugin loaded as a package, as an npm install is (real OpenCode 1.18.33)", () => {
  it("resolves the plugin through the package's ./server export", async () => {
    const built = builtPackage();
    const packageDir = pathToFileURL(dirname(dirname(fileURLToPath(built.plugin)))).href;
    await listsModelsWith(packageDir, "crsr_e2e_package_key");
  });

  it('runs the classic hooks of ./server for "plugin": ["ai-sdk-provider-cursor"]', async () => {
    const built = builtPackage();
    await listsModelsWith(
      "ai-sdk-provider-cursor",
      "crsr_e2e_package_name_key",
      async (sandbox) => {
        // Where OpenCode keeps a package plugin it installed (`<cache>/packages/<name>@latest`):
        // with the package there, it loads it without going to the registry.
        const installed = join(sandbox.cacheDir, "packages", "ai-sdk-provider-cursor@latest");
        await mkdir(join(installed, "node_modules"), { recursive: true });
        await symlink(
          dirname(dirname(fileURLToPath(built.plugin))),
          join(installed, "node_modules", "ai-sdk-provider-cursor"),
        );
      },
    );
  });
});

/**
 * Runs `opencode models cursor` with only `plugin: [spec]` in the config and an API key in
 * auth.json: the classic hooks register the provider, sign in and list the catalogue.
 */
async function listsModelsWith(
  spec: string,
  key: string,
  prepare?: (sandbox: Sandbox) => Promise<void>,
): Promise<void> {
  const emulator = await startCursorEmulator({ http2: false });
  const sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
  try {
    await prepare?.(sandbox);
    await sandbox.writeProjectConfig({ plugin: [spec] });
    await sandbox.writeAuth({ cursor: { type: "api", key } });
    const result = await runOpenCode(sandbox, ["models", "cursor"], { timeoutMs: 60_000 });
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^cursor\/claude-4\.5-sonnet-1m$/m);
  } finally {
    await emulator.close();
    await sandbox.remove();
  }
}
