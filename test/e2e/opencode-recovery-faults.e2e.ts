/**
 * Faults in the middle of a turn, through the real `opencode serve` against the emulator:
 * a drop right after a tool's result is rebuilt from OpenCode's history (the tool ran
 * once, Cursor's context holds it once); a persistent `unavailable` stops after the
 * per-turn budget of three server retries, OpenCode's own retries included; a quota
 * refusal is tried once and OpenCode does not retry it; a drop after new output past a
 * tool's result stays final (OpenCode shows one answer); a conversation too long for the
 * model makes OpenCode compact and carry on.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { type CursorEmulator, type FaultSpec, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer } from "./support/opencode.ts";
import {
  describeRuns,
  explain,
  latestModelContext,
  linesMatching,
  occurrences,
  runsSince,
} from "./support/recovery.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

/** What Cursor answers when a conversation no longer fits the model's context window. */
const CONVERSATION_TOO_LONG: FaultSpec = {
  kind: "error",
  code: "invalid_argument",
  message: "Conversation too long",
  detail: {
    error: "ERROR_CONVERSATION_TOO_LONG",
    title: "Conversation too long",
    detail: "Start a new chat or summarise this one.",
    isRetryable: false,
  },
};

/** The message and retry flag of the error OpenCode recorded for a turn. */
function apiError(error: unknown): { message: string; isRetryable: unknown } {
  const data = (error as { data?: { message?: unknown; isRetryable?: unknown } } | undefined)
    ?.data;
  return {
    message: String(data?.message ?? JSON.stringify(error)),
    isRetryable: data?.isRetryable,
  };
}

describe("faults inside a turn (real OpenCode)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_recovery_faults_key" } });
    server = await startServer(sandbox);
    const warm = await prompt(server.client, await newSession(server.client), "::text Ready.");
    assert.equal(warm.error, undefined, JSON.stringify(warm.error));
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("rebuilds a Run dropped right after a tool's result: the tool ran once, Cursor saw it once", async () => {
    const session = await newSession(server.client);
    const skip = emulator.runs().length;
    // The command holds `$((6*7))` and its output `result-42`, so the model's context
    // tells the call and its result apart.
    // The drop comes once the result reached Cursor, before Cursor acknowledged it: no
    // checkpoint holds the result, so the turn is rebuilt from OpenCode's history.
    const asked = "Count the runs\n::fault drop times=1 at=tool-result\n" +
      "::shell echo ran >> runs.txt; echo result-$((6*7))\n::text After the tool.";
    const answer = await prompt(server.client, session, asked);
    assert.equal(answer.error, undefined, await explain(server, sandbox, answer.error));
    const ran = await readFile(join(sandbox.project, "runs.txt"), "utf8");
    assert.equal(ran, "ran\n", "the shell tool ran exactly once");
    const tools = (await sessionParts(server.client, session)).filter((p) => p.type === "tool");
    assert.equal(tools.length, 1, JSON.stringify(tools));
    // The model carries on from the result in OpenCode's history, as the uninterrupted
    // turn would have: the text after the tool, then the result quoted once.
    assert.match(
      answer.text,
      /After the tool\.Tool results:\n- shell `[^`]+` exited 0: result-42$/,
    );
    assert.equal(occurrences(answer.text, "result-42"), 1, answer.text);

    const runs = runsSince(emulator, skip);
    assert.equal(runs[0]?.status, "dropped", runs.map((r) => r.status).join(","));
    assert.equal(runs.length, 2, "the dropped Run and the rebuilt one");
    assert.equal(runs[1]?.variants.continuation, "history", "carried on from the seeded results");
    // The rebuilt Run starts from OpenCode's history: the request, the tool call and its
    // result, each once.
    const context = latestModelContext(emulator);
    assert.equal(occurrences(context, "Count the runs"), 1, context);
    assert.equal(occurrences(context, "[tool call "), 1, context);
    assert.equal(occurrences(context, "result-42"), 1, context);
    const log = await sandbox.readDebugLog();
    assert.match(log, /retry=rebuild/);

    const next = await prompt(server.client, session, "::text Next turn fine.");
    assert.equal(next.error, undefined, await explain(server, sandbox, next.error));
    assert.equal(next.text, "Next turn fine.");
    const [history = "", ...rest] = latestModelContext(emulator).split("\n");
    assert.equal(rest.length, 2, `the answer and the new message follow:\n${rest.join("\n")}`);
    assert.equal(occurrences(history, "[tool call "), 1, history);
    assert.equal(occurrences(history, "result-42"), 1, history);
    assert.deepEqual(emulator.violations(), []);
  });

  it("resumes a Run dropped after Cursor saved the tool step: the tool ran once, Cursor saw it once", async () => {
    const session = await newSession(server.client);
    const skip = emulator.runs().length;
    const asked = "Count again\n::shell echo again >> again.txt; echo result-$((6*8))\n" +
      "::fault drop times=1\n::text After the tool.";
    const answer = await prompt(server.client, session, asked);
    assert.equal(answer.error, undefined, await explain(server, sandbox, answer.error));
    const ran = await readFile(join(sandbox.project, "again.txt"), "utf8");
    assert.equal(ran, "again\n", "the shell tool ran exactly once");
    assert.match(answer.text, /After the tool\./);
    const runs = runsSince(emulator, skip);
    assert.equal(runs[0]?.status, "dropped", runs.map((r) => r.status).join(","));
    assert.equal(runs.length, 2, "the dropped Run and the resumed one");
    const context = latestModelContext(emulator);
    assert.equal(occurrences(context, "Count again"), 1, context);
    assert.equal(occurrences(context, "result-48"), 1, context);
    const log = await sandbox.readDebugLog();
    assert.match(log, /resuming Run from checkpoint/);
    assert.match(log, /resume=true/);
    assert.deepEqual(emulator.violations(), []);
  });

  it("keeps a drop after new output past a tool's result final: OpenCode shows one answer", async () => {
    const session = await newSession(server.client);
    const skip = emulator.runs().length;
    // Cursor saved no checkpoint after the tool step, and the answer had begun: the step can
    // be neither resumed nor rebuilt without answering it a second time.
    const asked = "Count thrice\n::fault no-checkpoint times=1\n" +
      "::shell echo thrice >> thrice.txt\n::text All done here.\n::fault drop times=1\n::text More.";
    const answer = await prompt(server.client, session, asked);
    const runs = runsSince(emulator, skip);
    const report = `${describeRuns(runs)}\n${await explain(server, sandbox, answer.error)}`;
    assert.notEqual(answer.error, undefined, report);
    const error = apiError(answer.error);
    assert.equal(error.isRetryable, false, report);
    assert.match(error.message, /cut off/, report);
    assert.equal(runs.length, 1, `no rebuild, and OpenCode did not retry:\n${report}`);
    assert.equal(await readFile(join(sandbox.project, "thrice.txt"), "utf8"), "thrice\n");
    assert.equal(occurrences(answer.text, "All done here."), 1, answer.text);
    assert.doesNotMatch(answer.text, /Tool results:/, "no second answer to the step");

    const next = await prompt(server.client, session, "::text Healthy again.");
    assert.equal(next.text, "Healthy again.", await explain(server, sandbox, next.error));
    assert.deepEqual(emulator.violations(), []);
  });

  it("stops a persistent unavailable after three server retries, OpenCode's included", async () => {
    const session = await newSession(server.client);
    const skip = emulator.runs().length;
    const answer = await prompt(server.client, session, "Go on\n::fault error code=unavailable");
    const runs = runsSince(emulator, skip);
    const report = `${describeRuns(runs)}\n${await explain(server, sandbox, answer.error)}`;
    assert.equal(runs.length, 4, `the first Run and three retries:\n${report}`);
    assert.ok(runs.every((run) => run.status === "error"), report);
    const error = apiError(answer.error);
    assert.equal(error.isRetryable, false, report);
    assert.match(error.message, /the turn's server retries are spent/, report);

    const next = await prompt(server.client, session, "::text Healthy again.");
    assert.equal(next.text, "Healthy again.", await explain(server, sandbox, next.error));
  });

  it("counts OpenCode's own retries of an unavailable with a retry delay against the budget", async () => {
    const session = await newSession(server.client);
    const skip = emulator.runs().length;
    // The preset asks for a one-second wait: the provider hands it back, OpenCode retries.
    const answer = await prompt(server.client, session, "Go on\n::fault unavailable");
    const runs = runsSince(emulator, skip);
    const report = `${describeRuns(runs)}\n${await explain(server, sandbox, answer.error)}`;
    assert.equal(runs.length, 4, `the first Run and three retries, OpenCode's:\n${report}`);
    const error = apiError(answer.error);
    assert.equal(error.isRetryable, false, report);
    assert.match(error.message, /server retries/, report);
  });

  it("tries a quota refusal once, and OpenCode does not retry it", async () => {
    const session = await newSession(server.client);
    const skip = emulator.runs().length;
    const answer = await prompt(server.client, session, "Go on\n::fault quota");
    const runs = runsSince(emulator, skip);
    const report = `${describeRuns(runs)}\n${await explain(server, sandbox, answer.error)}`;
    assert.equal(runs.length, 1, `one Run, no retry:\n${report}`);
    assert.equal(runs[0]?.status, "error", report);
    const error = apiError(answer.error);
    assert.equal(error.isRetryable, false, report);
    assert.match(error.message, /usage limit/i);
    // The words OpenCode's own retry check reacts to, whatever `isRetryable` says.
    assert.doesNotMatch(error.message, /exhausted|rate.?limit|try again|unavailable|429|5\d\d/i);
  });

  it("compacts a conversation too long for the model and carries on", async () => {
    const session = await newSession(server.client);
    const first = await prompt(server.client, session, "::text The plan has three steps.");
    assert.equal(first.error, undefined, await explain(server, sandbox, first.error));
    const skip = emulator.runs().length;
    emulator.faults.next(CONVERSATION_TOO_LONG);
    const answer = await prompt(server.client, session, "Tell me the plan again");
    const runs = runsSince(emulator, skip);
    const report = `${describeRuns(runs)}\n${await explain(server, sandbox, answer.error)}`;
    assert.equal(runs[0]?.status, "error", report);
    assert.equal(answer.error, undefined, report);
    assert.ok(answer.text.length > 0, "the turn is answered after the summary");
    const parts = await sessionParts(server.client, session);
    assert.ok(
      parts.some((part) => part.type === "compaction"),
      `OpenCode compacted: ${JSON.stringify(parts.map((p) => p.type))}\n${report}`,
    );
    assert.equal(runs.length, 3, `refused, summary, answer:\n${report}`);
    assert.match(runs[1]?.userText ?? "", /summary/i, `OpenCode's summary request:\n${report}`);
    const compacted = latestModelContext(emulator);
    assert.equal(linesMatching(compacted, /^user: .*conversation_so_far/), 1, compacted);
    assert.equal(linesMatching(compacted, /Tell me the plan again/), 1, compacted);
    assert.match(await sandbox.readDebugLog(), /conversation reset: reason=post-compaction-rebase/);

    const next = await prompt(server.client, session, "::text After compaction.");
    assert.equal(next.error, undefined, await explain(server, sandbox, next.error));
    assert.equal(next.text, "After compaction.");
    const after = latestModelContext(emulator);
    assert.equal(
      after.split("\n").length,
      3,
      `summary and request, answer, new message:\n${after}`,
    );
    assert.match(after, /^user: .*conversation_so_far/);
  });
});
