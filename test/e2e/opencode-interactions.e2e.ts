/**
 * Cursor's interactions through the real `opencode serve`, against the emulator: a
 * question reaches OpenCode's own question UI and is answered or dismissed there; a plan
 * is saved to the project's plan folder, shown and approved, or declined; an image sent
 * to a text-only model fails with a clear error before any Run.
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

interface PendingQuestion {
  readonly id: string;
  readonly sessionID: string;
  readonly questions: { question: string; options: { label: string }[] }[];
}

describe("interactions through opencode serve (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({
      CURSOR_API_BASE_URL: emulator.url,
      OPENCODE_ENABLE_QUESTION_TOOL: "1",
    });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_interactions" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  const query = () => `directory=${encodeURIComponent(sandbox.project)}`;

  /** Waits for the session's pending question (polling OpenCode's question list). */
  async function pendingQuestion(session: string): Promise<PendingQuestion> {
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline) {
      const response = await fetch(`${server.url}/question?${query()}`, {
        signal: AbortSignal.timeout(20_000),
      });
      const list = (await response.json()) as PendingQuestion[];
      const found = list.find((q) => q.sessionID === session);
      if (found) return found;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error("no question appeared in OpenCode");
  }

  async function reply(id: string, answers: string[][]): Promise<void> {
    const response = await fetch(`${server.url}/question/${id}/reply?${query()}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ answers }),
      signal: AbortSignal.timeout(20_000),
    });
    assert.ok(response.ok, `reply answered ${response.status}`);
  }

  async function reject(id: string): Promise<void> {
    const response = await fetch(`${server.url}/question/${id}/reject?${query()}`, {
      method: "POST",
      signal: AbortSignal.timeout(20_000),
    });
    assert.ok(response.ok, `reject answered ${response.status}`);
  }

  it("shows Cursor's question in OpenCode and sends the picked answer back", async () => {
    const session = await newSession(server.client);
    const turn = prompt(server.client, session, "::ask Pick a colour | red | green");
    const pending = await pendingQuestion(session);
    assert.equal(pending.questions[0]?.question, "Pick a colour");
    assert.deepEqual(pending.questions[0]?.options.map((o) => o.label), ["red", "green"]);
    await reply(pending.id, [["green"]]);
    const answer = await turn;
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(answer.text, /ask "Pick a colour": answered "green"/);
    const run = emulator.runs().at(-1);
    assert.deepEqual(run?.interactions.map((q) => q.resultCase), [
      "askQuestionInteractionResponse",
    ]);
    assert.deepEqual(emulator.violations(), []);
  });

  it("sends a dismissed question back as an explicit decline", async () => {
    const session = await newSession(server.client);
    const turn = within(
      prompt(server.client, session, "::ask Proceed? | yes | no"),
      60_000,
      "dismissed question turn",
    );
    const pending = await pendingQuestion(session);
    await reject(pending.id);
    await turn.catch(() => undefined);
    const question = (await sessionParts(server.client, session)).find((
      part,
    ): part is ToolPart => part.type === "tool" && part.tool === "question");
    assert.equal(question?.state.status, "error");
    // OpenCode ends its turn at a dismissal; the next message settles the waiting question.
    const next = await prompt(server.client, session, "::text moving on");
    assert.equal(next.text, "moving on", JSON.stringify(next.error));
    const run = emulator.runs().findLast((r) =>
      r.interactions.some((q) => q.queryCase === "askQuestionInteractionQuery")
    );
    const log = (await sandbox.readDebugLog()).split("\n").filter((line) =>
      /held Run|interaction|question/i.test(line)
    ).join("\n");
    assert.equal(run?.interactions.at(-1)?.resultCase, "askQuestionInteractionResponse", log);
    assert.deepEqual(emulator.violations(), []);
  });

  it("saves a plan in the project, shows it, and accepts it on approval", async () => {
    const session = await newSession(server.client);
    const turn = prompt(server.client, session, "::plan Add flag: add a --verbose flag");
    const pending = await pendingQuestion(session);
    assert.match(pending.questions[0]?.question ?? "", /add a --verbose flag/);
    const saved = await readFile(join(sandbox.project, ".opencode/plans/add-flag.md"), "utf8");
    assert.equal(saved, "add a --verbose flag");
    await reply(pending.id, [["Implement the plan"]]);
    const answer = await turn;
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(answer.text, /plan "Add flag": accepted at .*add-flag\.md/);
  });

  it("keeps planning when the plan is declined", async () => {
    const session = await newSession(server.client);
    const turn = prompt(server.client, session, "::plan Later: maybe later");
    const pending = await pendingQuestion(session);
    await reply(pending.id, [["Keep planning"]]);
    const answer = await turn;
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.match(answer.text, /plan "Later": error \(The user did not approve the plan/);
  });

  it("never sends an image to a text-only model; the user is told why", async () => {
    const session = await newSession(server.client);
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
      "image prompt",
    );
    assert.equal(response.error, undefined, JSON.stringify(response.error));
    const run = emulator.runs().at(-1);
    assert.match(run?.userText ?? "", /"pixel\.png" \(this model does not support image input\)/);
  });
});

const PNG_1X1 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
