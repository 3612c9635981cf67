/**
 * What OpenCode users bring to a turn, through the real `opencode serve` against the
 * emulator: a project skill reaches Cursor as `agent_skills` (the emulator's model lists it
 * and uses it by reading its `SKILL.md`), a PNG that OpenCode's read returns reaches
 * Cursor's model as an image in the same turn, OpenCode writes the session title with
 * a small Cursor model picked by its family, and an edited or nested `AGENTS.md` reaches
 * Cursor's model once, on the next Run.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { ToolPart } from "@opencode-ai/sdk";
import {
  type CatalogModel,
  type CursorEmulator,
  defaultCatalog,
  startCursorEmulator,
} from "../../src/testing/mod.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

/** A small model as Cursor lists one: OpenCode's title model once it carries its family. */
const HAIKU: CatalogModel = {
  id: "claude-4.5-haiku",
  displayName: "Haiku 4.5",
  thinking: false,
  thinkingStyle: 0,
  images: true,
  maxMode: false,
  nonMaxMode: true,
  contextTokens: 200_000,
  parameters: [],
  variants: [],
};

/** A 1×1 PNG (70 bytes). */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PNG = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));

/** A stdio MCP server with one tool that returns text and an image (MCP image content). */
const MCP_SERVER = `
import { createInterface } from "node:readline";
const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\\n");
createInterface({ input: process.stdin }).on("line", (line) => {
  const request = JSON.parse(line);
  if (request.id === undefined) return;
  if (request.method === "initialize") {
    send({ id: request.id, result: {
      protocolVersion: request.params.protocolVersion,
      capabilities: { tools: {} },
      serverInfo: { name: "shot", version: "1.0.0" },
    } });
  } else if (request.method === "tools/list") {
    send({ id: request.id, result: { tools: [{
      name: "snapshot",
      description: "Takes a snapshot of the screen",
      inputSchema: { type: "object", properties: {} },
    }] } });
  } else if (request.method === "tools/call") {
    send({ id: request.id, result: { content: [
      { type: "text", text: "snapshot taken" },
      { type: "image", data: "${PNG_BASE64}", mimeType: "image/png" },
    ] } });
  } else {
    send({ id: request.id, error: { code: -32601, message: "Method not found" } });
  }
});
`;

describe("skills, tool images and titles through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;
  let skillPath = "";

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false, models: [...defaultCatalog(), HAIKU] });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    const mcpServer = join(sandbox.root, "mcp-shot.mjs");
    await writeFile(mcpServer, MCP_SERVER);
    await sandbox.writeProjectConfig({
      ...chatConfig(built, emulator.url),
      mcp: { shot: { type: "local", command: [process.execPath, mcpServer] } },
    });
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_skills_key" } });
    const skillDir = join(sandbox.project, ".opencode", "skill", "demo-widget");
    await mkdir(skillDir, { recursive: true });
    skillPath = join(skillDir, "SKILL.md");
    await writeFile(
      skillPath,
      '---\nname: demo-widget\ndescription: "Explains the demo widget"\n---\n\nThe widget says WIDGET-OK.\n',
    );
    await writeFile(join(sandbox.project, "dot.png"), PNG);
    await writeFile(join(sandbox.project, "AGENTS.md"), "Use spaces.\n");
    await mkdir(join(sandbox.project, "sub"), { recursive: true });
    await writeFile(join(sandbox.project, "sub", "AGENTS.md"), "In sub, use tabs.\n");
    await writeFile(join(sandbox.project, "sub", "notes.txt"), "sub notes\n");
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("sends the project skill as agent_skills; the model lists it and uses it", async () => {
    const session = await newSession(server.client);
    const listed = await prompt(server.client, session, "::skills", "gpt-5");
    assert.equal(listed.error, undefined, JSON.stringify(listed.error));
    assert.match(listed.text, /^Skills:\n/);
    assert.ok(
      listed.text.includes(`- demo-widget (${skillPath}): Explains the demo widget`),
      listed.text,
    );
    assert.doesNotMatch(listed.text, /built-in/, "OpenCode's built-in skill has no file");
    const used = await prompt(server.client, session, "::skill demo-widget", "gpt-5");
    assert.equal(used.error, undefined, JSON.stringify(used.error));
    assert.match(used.text, /WIDGET-OK/);
    const read = (await sessionParts(server.client, session)).find((part): part is ToolPart =>
      part.type === "tool" && part.tool === "read"
    );
    assert.equal(read?.state.status, "completed");
    assert.deepEqual(emulator.violations(), []);
  });

  it("a PNG read by OpenCode reaches Cursor's model as an image in the same turn", async () => {
    const session = await newSession(server.client);
    const before = emulator.runs().length;
    const png = join(sandbox.project, "dot.png");
    const answer = await prompt(server.client, session, `::read ${png}`, "gpt-5");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(answer.text, /\[image image\/png, 70 bytes\]/);
    const runs = emulator.runs().slice(before);
    assert.equal(runs.length, 1, "the held Run took the read's result, no new user turn");
    const context = (runs[0]?.modelCalls.at(-1)?.context ?? []).join("\n");
    assert.match(context, /read `[^`]*dot\.png`: \[image image\/png, 70 bytes\]/);
    assert.deepEqual(emulator.violations(), []);
  });

  it("an MCP tool's image reaches Cursor's model as image content of its result", async () => {
    const session = await newSession(server.client);
    const before = emulator.runs().length;
    const answer = await prompt(server.client, session, "::mcp shot_snapshot {}", "gpt-5");
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(
      answer.text,
      /mcp `shot_snapshot`: snapshot taken\n\[image image\/png, 70 bytes\]/,
    );
    assert.equal(emulator.runs().length - before, 1, "the held Run took the tool's result");
    assert.deepEqual(emulator.violations(), []);
  });

  it("titles a new session with the small model", async () => {
    const created = await within(server.client.session.create({ body: {} }), 15_000, "create");
    const id = created.data?.id ?? "";
    const defaultTitle = created.data?.title ?? "";
    const answer = await prompt(server.client, id, "::text titled turn", "gpt-5");
    assert.equal(answer.text, "titled turn", JSON.stringify(answer.error));
    let title = defaultTitle;
    for (let i = 0; i < 100 && title === defaultTitle; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const got = await within(server.client.session.get({ path: { id } }), 10_000, "get");
      title = got.data?.title ?? defaultTitle;
    }
    const titleRuns = emulator.runs().filter((run) => run.userText.includes("Generate a title"));
    assert.ok(titleRuns.length > 0, "a title Run reached Cursor");
    assert.deepEqual([...new Set(titleRuns.map((run) => run.modelId))], ["claude-4.5-haiku"]);
    assert.notEqual(title, defaultTitle, "the session got its title");
  });

  it("an edited AGENTS.md and a nested one a read brought in reach the model once, on the next Run", async () => {
    const session = await newSession(server.client);
    const agents = join(sandbox.project, "AGENTS.md");
    const nested = join(sandbox.project, "sub", "AGENTS.md");
    const first = await prompt(server.client, session, "::text first", "gpt-5");
    assert.equal(first.text, "first", JSON.stringify(first.error));
    const start = emulator.runs().length - 1;
    const read = await prompt(
      server.client,
      session,
      `::read ${join(sandbox.project, "sub", "notes.txt")}`,
      "gpt-5",
    );
    assert.equal(read.error, undefined, JSON.stringify(read.error));
    await writeFile(agents, "Use tabs everywhere.\n");
    const third = await prompt(server.client, session, "::text third", "gpt-5");
    assert.equal(third.error, undefined, JSON.stringify(third.error));
    const fourth = await prompt(server.client, session, "::text fourth", "gpt-5");
    assert.equal(fourth.text, "fourth", JSON.stringify(fourth.error));
    const runs = emulator.runs().slice(start).filter((run) =>
      !run.userText.includes("Generate a title")
    );
    const texts = runs.map((run) => run.userText);
    assert.equal(texts[0], "::text first", "the first Run's rule carries AGENTS.md");
    assert.doesNotMatch(texts[1] ?? "", /system-reminder/);
    assert.match(texts[2] ?? "", /^::text third\n\n<system-reminder>\n/);
    assert.ok(
      (texts[2] ?? "").includes(`Instructions from: ${agents}\nUse tabs everywhere.`),
      texts[2],
    );
    assert.ok(
      (texts[2] ?? "").includes(`Instructions from: ${nested}\nIn sub, use tabs.`),
      texts[2],
    );
    assert.equal(texts[3], "::text fourth", "each change goes out once");
    assert.deepEqual(runs.map((run) => run.continuity), ["cold", "warm", "warm", "warm"]);
    assert.match(await sandbox.readDebugLog(), /context epoch: reason=changed /);
    assert.equal((await readFile(agents, "utf8")).trim(), "Use tabs everywhere.");
  });
});
