/**
 * Plan mode through the real `opencode serve`, against the emulator: a plan saved in the
 * project and approved in OpenCode's question UI is built in the same turn (the plan Run
 * ends, an `execute_plan_action` Run writes the file); a declined plan leaves Cursor in
 * plan mode for the next message, and so does a dismissed one (declined when that message
 * starts); a session whose rules deny edits blocks the CreatePlan
 * (OpenCode offers no edit tool to save it with) and the turn ends before the next queued
 * tool runs.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
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
  readonly questions: { question: string; header: string; options: { label: string }[] }[];
}

describe("plan mode through opencode serve (real OpenCode 1.18.33)", () => {
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
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_plan_mode" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  const query = () => `directory=${encodeURIComponent(sandbox.project)}`;

  async function pendingQuestion(session: string): Promise<PendingQuestion> {
    const deadline = Date.now() + 45_000;
    while (Date.now() < deadline) {
      const response = await fetch(`${server.url}/question?${query()}`, {
        signal: AbortSignal.timeout(20_000),
      });
      const found = ((await response.json()) as PendingQuestion[]).find((q) =>
        q.sessionID === session
      );
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

  /** Every text part of the session, in order. */
  async function sessionText(session: string): Promise<string> {
    return (await sessionParts(server.client, session)).flatMap((part) =>
      part.type === "text" ? [part.text] : []
    ).join("\n");
  }

  it("saves the plan, and on approval ends the plan Run and builds it in the same turn", async () => {
    const session = await newSession(server.client);
    const turn = prompt(
      server.client,
      session,
      "::plan Notes: ::write notes.txt built",
      undefined,
      90_000,
    );
    const pending = await pendingQuestion(session);
    assert.equal(pending.questions[0]?.header, "Notes");
    const saved = await readFile(join(sandbox.project, ".opencode/plans/notes.md"), "utf8");
    assert.equal(saved, "::write notes.txt built");
    await reply(pending.id, [["Implement the plan"]]);
    const answer = await turn;
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    assert.equal(await readFile(join(sandbox.project, "notes.txt"), "utf8"), "built");
    const runs = emulator.runs().filter((run) =>
      run.conversationId === emulator.runs().at(-1)?.conversationId
    );
    assert.deepEqual(runs.map((run) => run.action), ["user_message_action", "execute_plan_action"]);
    assert.ok((runs[0]?.endedAt ?? Infinity) <= (runs[1]?.startedAt ?? 0), "plan Run ended first");
    const text = await sessionText(session);
    assert.match(text, /plan "Notes": accepted at .*notes\.md/);
    assert.match(text, /write `notes\.txt`/);
    assert.deepEqual(emulator.violations(), []);
  });

  it("keeps Cursor in plan mode after a declined plan", async () => {
    const session = await newSession(server.client);
    const turn = prompt(server.client, session, "::plan Later: maybe later");
    const pending = await pendingQuestion(session);
    await reply(pending.id, [["Keep planning"]]);
    const declined = await turn;
    assert.equal(declined.error, undefined, JSON.stringify(declined.error));
    assert.match(await sessionText(session), /plan "Later": error \(The user did not approve/);
    const next = await prompt(server.client, session, "::write later.txt now");
    assert.equal(next.error, undefined, JSON.stringify(next.error));
    assert.match(next.text, /write: not available in plan mode/);
    assert.equal(existsSync(join(sandbox.project, "later.txt")), false);
    assert.equal(emulator.runs().at(-1)?.mode, "plan");
    assert.deepEqual(emulator.violations(), []);
  });

  it("keeps plan mode after a dismissed plan review", async () => {
    const session = await newSession(server.client);
    const turn = within(
      prompt(server.client, session, "::plan Dismissed: maybe"),
      60_000,
      "dismissed plan turn",
    ).catch(() => undefined);
    const pending = await pendingQuestion(session);
    const reject = await fetch(`${server.url}/question/${pending.id}/reject?${query()}`, {
      method: "POST",
      signal: AbortSignal.timeout(20_000),
    });
    assert.ok(reject.ok, `reject answered ${reject.status}`);
    await turn;
    // OpenCode makes no model call after a dismissal: the next message settles the review.
    const next = await prompt(server.client, session, "::write dismissed.txt now");
    const planRun = emulator.runs().findLast((run) =>
      run.interactions.some((q) => q.queryCase === "createPlanRequestQuery")
    );
    assert.equal(planRun?.interactions[0]?.resultCase, "createPlanRequestResponse");
    assert.match(next.text, /write: not available in plan mode/);
    assert.equal(existsSync(join(sandbox.project, "dismissed.txt")), false);
    assert.equal(emulator.runs().at(-1)?.mode, "plan");
    assert.deepEqual(emulator.violations(), []);
  });

  it("blocks a CreatePlan under the session's edit deny and ends the turn", async () => {
    const created = await within(
      fetch(`${server.url}/session?${query()}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          title: "cursor e2e",
          permission: [{ permission: "edit", pattern: "*", action: "deny" }],
        }),
      }).then((response) => response.json() as Promise<{ id: string }>),
      15_000,
      "session with an edit deny",
    );
    const answer = await prompt(
      server.client,
      created.id,
      "::plan Blocked: step\n::write after.txt no",
    );
    assert.equal(answer.error, undefined, JSON.stringify(answer.error));
    const text = await sessionText(created.id);
    // OpenCode offers no edit tool under a session-wide edit deny, so nothing can save it.
    const parts = await sessionParts(server.client, created.id);
    const tools = parts.filter((part): part is ToolPart => part.type === "tool");
    assert.deepEqual(tools.map((part) => part.tool), [], text);
    assert.equal(existsSync(join(sandbox.project, ".opencode/plans/blocked.md")), false);
    assert.equal(existsSync(join(sandbox.project, "after.txt")), false);
    assert.match(text, /plan "Blocked": error \(The plan could not be saved/);
    assert.match(text, /This session denies file edits/);
    const run = emulator.runs().at(-1);
    assert.deepEqual(run?.interactions.map((q) => q.resultCase), ["createPlanRequestResponse"]);
    assert.deepEqual(emulator.violations(), []);
  });
});
