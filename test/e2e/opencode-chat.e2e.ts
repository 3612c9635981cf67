/**
 * Chats through the real `opencode serve` and `@opencode-ai/sdk`, against the emulator:
 * a text turn, a warm second turn in the same session, a shell command Cursor asks for
 * and OpenCode runs, a file edit in the project, variants and the 1M tier on the wire, and
 * a stale variant failing clearly. The 1.18 v2 entry is loaded through the
 * top-level `plugins` field of the global config at the same time (it loads, registers
 * its AI SDK hooks, and 1.18.33's sessions still use the classic provider).
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolPart } from "@opencode-ai/sdk";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt, promptWithVariant, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

describe("chats through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeGlobalConfig({ plugins: [built.pluginV2] });
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_chat_key" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("answers a text turn", async () => {
    const session = await newSession(server.client);
    const answer = await prompt(server.client, session, "::text hello from e2e");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.equal(answer.text, "hello from e2e");
    const run = emulator.runs().at(-1);
    assert.equal(run?.modelId, "composer-1");
    assert.equal(run?.status, "ok");
  });

  it("continues a second turn of the same session warm, reading the prompt cache", async () => {
    const session = await newSession(server.client);
    const first = await prompt(server.client, session, "::text first turn");
    assert.equal(first.text, "first turn", JSON.stringify(first.error));
    const second = await prompt(server.client, session, "::text second turn");
    assert.equal(second.error, undefined, JSON.stringify(second.error));
    assert.equal(second.text, "second turn");
    const [runA, runB] = emulator.runs().slice(-2);
    assert.equal(runA?.conversationId, runB?.conversationId, "same Cursor conversation");
    assert.equal(runB?.continuity, "warm");
    assert.equal(runB?.checkpointSupplied, true);
    assert.ok((runB?.counters.cacheRead ?? 0) > 0, `cacheRead ${runB?.counters.cacheRead}`);
    const log = await sandbox.readDebugLog();
    assert.match(log, new RegExp(`sessionKey=${session} .*continuity=warm`));
  });

  it(
    "runs the shell command Cursor asks for and quotes its output",
    async () => {
      const session = await newSession(server.client);
      const answer = await prompt(server.client, session, "Run it.\n::shell echo e2e-$((6*7))");
      const bash = (await sessionParts(server.client, session)).find((part): part is ToolPart =>
        part.type === "tool" && part.tool === "bash"
      );
      assert.equal(bash?.state.status, "completed");
      assert.match(bash?.state.status === "completed" ? bash.state.output : "", /e2e-42/);
      assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      assert.match(answer.text, /e2e-42/);
    },
  );

  it("edits a file of the project", async () => {
    const file = join(sandbox.project, "notes.txt");
    await writeFile(file, "before the edit\n");
    const session = await newSession(server.client);
    const answer = await prompt(
      server.client,
      session,
      "Update the notes.\n::write notes.txt edited by cursor",
    );
    assert.equal(await readFile(file, "utf8"), "edited by cursor");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const tools = (await sessionParts(server.client, session)).flatMap((part) =>
      part.type === "tool" ? [part.tool] : []
    );
    assert.ok(tools.includes("read"), tools.join());
  });

  it("sends a selected variant's exact tuple, and the 1M entry as Max Mode", async () => {
    const session = await newSession(server.client);
    const fast = await promptWithVariant(server.url, sandbox.project, session, {
      model: "gpt-5",
      variant: "high-fast",
      text: "::text variant",
    });
    assert.equal(fast.text, "variant", JSON.stringify(fast.error));
    const variantRun = emulator.runs().at(-1);
    assert.equal(variantRun?.modelId, "gpt-5");
    assert.deepEqual(variantRun?.parameters, { reasoning: "high", fast: "true" });
    assert.equal(variantRun?.variants.parametersMatchVariant, true);

    const long = await prompt(
      server.client,
      await newSession(server.client),
      "::text long",
      "claude-4.5-sonnet-1m",
    );
    assert.equal(long.text, "long", JSON.stringify(long.error));
    const longRun = emulator.runs().at(-1);
    assert.equal(longRun?.modelId, "claude-4.5-sonnet");
    assert.equal(longRun?.maxMode, true);
    assert.deepEqual(longRun?.parameters, { thinking: "true", context: "1m" });
  });

  it("fails a variant that is no longer offered with a message, instead of falling back", async () => {
    const runsBefore = emulator.runs().length;
    const stale = await promptWithVariant(
      server.url,
      sandbox.project,
      await newSession(server.client),
      {
        model: "gpt-5",
        variant: "ultra",
        text: "::text never sent",
      },
    );
    assert.match(
      JSON.stringify(stale.error),
      /The variant \\"ultra\\" of Cursor model \\"gpt-5\\" is no longer offered/,
    );
    assert.equal(stale.text, "");
    assert.equal(emulator.runs().length, runsBefore, "nothing reached Cursor");
  });

  it("loads the v2 entry from the global `plugins` field without it taking over the chats", async () => {
    const log = await sandbox.readDebugLog();
    assert.match(log, /plugin v2: setup \(aisdk hooks\)/);
    assert.doesNotMatch(log, /plugin v2: (sdk|language) /, "1.18.33 builds models the classic way");
    assert.match(server.output(), /Omitted native setting that cannot be represented in V1/);
  });
});
