/**
 * Cursor's Task attachments, image input and generated images through the real
 * `opencode serve`, against the emulator: a Task with two attached files reaches
 * OpenCode's own task tool, whose child session sees the exact quoted paths; an image
 * reaches an image model and is refused with a clear error for a text-only one (listed
 * in the config as taking images, so OpenCode sends it); a generated image is saved
 * by the classic plugin's `cursor_image_save` tool; a failed command's status reaches both
 * OpenCode's row and Cursor.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ToolPart } from "@opencode-ai/sdk";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";

describe("Task attachments and images through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    const config = chatConfig(built, emulator.url) as {
      provider: { cursor: { models: Record<string, unknown> } };
    };
    // A stale entry that still claims image input for the text-only model.
    // (OpenCode decides from `modalities.input`.)
    config.provider.cursor.models["composer-1"] = {
      attachment: true,
      modalities: { input: ["text", "image"], output: ["text"] },
    };
    await sandbox.writeProjectConfig(config);
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_surface" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("hands a Task's two attachments to OpenCode's child as exact quoted paths", async () => {
    const first = join(sandbox.project, "shots", "before after.png");
    const second = join(sandbox.project, "notes.txt");
    const session = await newSession(server.client);
    const answer = await prompt(
      server.client,
      session,
      `::subagent general Compare the attached files | ${first} | ${second}`,
      "composer-1",
      90_000,
    );
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const task = (await sessionParts(server.client, session)).find((part): part is ToolPart =>
      part.type === "tool" && part.tool === "task"
    );
    assert.equal(task?.state.status, "completed", JSON.stringify(task?.state));
    const input = task?.state.input as { description?: string; prompt?: string };
    assert.equal(input.description, "general task: Compare the attached", "Cursor's description");
    const child = emulator.runs().find((run) => run.userText.startsWith("Compare the attached"));
    assert.ok(child, `the child ran: ${emulator.runs().map((r) => r.userText).join(" / ")}`);
    assert.ok(child.userText.includes(`- ${JSON.stringify(first)}`), child.userText);
    assert.ok(child.userText.includes(`- ${JSON.stringify(second)}`), child.userText);
    assert.deepEqual(child.images, [], "no attachment bytes went to the child's Run");
    assert.match(answer.text, /subagent `general`: /);
    assert.deepEqual(emulator.violations(), []);
  });

  it("sends an image to an image-capable model", async () => {
    const session = await newSession(server.client);
    const before = emulator.runs().length;
    const response = await within(
      server.client.session.prompt({
        path: { id: session },
        body: {
          model: { providerID: "cursor", modelID: "gpt-5" },
          parts: [
            { type: "text", text: "::text looked" },
            {
              type: "file",
              mime: "image/png",
              filename: "pixel.png",
              url: `data:image/png;base64,${PNG_1X1}`,
            },
          ],
        },
      }),
      60_000,
      "image prompt",
    );
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    const run = emulator.runs().slice(before).find((r) => r.modelId.startsWith("gpt-5"));
    assert.deepEqual(run?.images, ["image/png"]);
    assert.deepEqual(emulator.violations(), []);
  });

  it("refuses an image for a text-only model with a clear error before any Run", async () => {
    const session = await newSession(server.client);
    const before = emulator.runs().length;
    const response = await within(
      server.client.session.prompt({
        path: { id: session },
        body: {
          model: { providerID: "cursor", modelID: "composer-1" },
          parts: [
            { type: "text", text: "::text looked" },
            {
              type: "file",
              mime: "image/png",
              filename: "pixel.png",
              url: `data:image/png;base64,${PNG_1X1}`,
            },
          ],
        },
      }),
      60_000,
      "text-only image prompt",
    );
    const info = response.data?.info as { error?: unknown } | undefined;
    const error = JSON.stringify(response.error ?? info?.error ?? null);
    assert.match(
      error,
      /Model \\"composer-1\\" does not accept images; choose an image-capable model/,
    );
    assert.equal(emulator.runs().length, before, "no Run was opened");
  });

  it("saves an image Cursor generated through the cursor_image_save tool", async () => {
    const session = await newSession(server.client);
    const answer = await prompt(
      server.client,
      session,
      "::image assets/cat.png A cat in a hat",
      "composer-1",
      90_000,
    );
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const saved = new Uint8Array(await readFile(join(sandbox.project, "assets", "cat.png")));
    assert.deepEqual([...saved.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");
    const tool = (await sessionParts(server.client, session)).find((part): part is ToolPart =>
      part.type === "tool" && part.tool === "cursor_image_save"
    );
    assert.equal(tool?.state.status, "completed", JSON.stringify(tool?.state));
    assert.match(answer.text, new RegExp(`image \`assets/cat.png\`: saved ${saved.length} bytes`));
    const run = emulator.runs().at(-1);
    assert.deepEqual(run?.interactions.map((q) => q.resultCase), ["generateImageRequestResponse"]);
    assert.deepEqual(emulator.violations(), []);
  });

  it("a failed command's real status reaches OpenCode's row and Cursor, its output unchanged", async () => {
    const session = await newSession(server.client);
    const answer = await prompt(server.client, session, "::shell printf '  a b  \\n'; exit 3");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const bash = (await sessionParts(server.client, session)).find((part): part is ToolPart =>
      part.type === "tool" && part.tool === "bash"
    );
    assert.equal(bash?.state.status, "completed", JSON.stringify(bash?.state));
    const metadata = bash?.state.status === "completed" ? bash.state.metadata : undefined;
    assert.equal(metadata?.exit, 3, "OpenCode records the command's own status");
    // One space after the colon, then the two leading spaces the command printed.
    assert.match(answer.text, /exited 3: {3}a b$/);
    assert.deepEqual(emulator.violations(), []);
  });
});
