/**
 * A browser login whose access token expires while a Run is held open for a slow tool,
 * through the real `opencode serve` against the emulator (which refuses expired tokens):
 * the token is renewed during the Run, every BidiAppend and every re-opened Run carries a
 * current one, and the turn ends with its answer.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type CursorEmulator, type RunRecord, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer } from "./support/opencode.ts";
import {
  describeRuns,
  explain,
  httpAnswers,
  latestModelContext,
  occurrences,
  requestsAfter,
  runsSince,
} from "./support/recovery.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

/** Access tokens of this test live 8 s; each tool below takes longer. */
const TOKEN_LIFETIME_MS = 8_000;

describe("a token expiring inside a held Run (real OpenCode)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    emulator.auth.setTokenLifetime(TOKEN_LIFETIME_MS);
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    await sandbox.writeProjectConfig(chatConfig(built, emulator.url));
    const seeded = await emulator.auth.issueTokens();
    await sandbox.writeAuth({
      cursor: {
        type: "oauth",
        access: seeded.accessToken,
        refresh: seeded.refreshToken,
        expires: Date.now() + TOKEN_LIFETIME_MS,
      },
    });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  /** Runs one turn whose shell tool outlives the token, and checks every answer Cursor gave. */
  async function slowToolTurn(
    asked: string,
  ): Promise<{ text: string; runs: RunRecord[]; report: string }> {
    const session = await newSession(server.client);
    const skipRuns = emulator.runs().length;
    const skipHttp = httpAnswers(emulator).length;
    const renewalsBefore = emulator.auth.refreshVariants().length;
    const answer = await prompt(server.client, session, asked, "composer-1", 90_000);
    const runs = runsSince(emulator, skipRuns);
    const report = `${describeRuns(runs)}\n${await explain(server, sandbox, answer.error)}`;
    assert.equal(answer.error, undefined, report);
    const refused = httpAnswers(emulator).slice(skipHttp).filter((line) => / 401 /.test(line));
    assert.deepEqual(refused, [], `no request carried an expired token\n${report}`);
    assert.ok(
      emulator.auth.refreshVariants().length > renewalsBefore,
      `the token was renewed during the turn\n${report}`,
    );
    assert.equal(runs.at(-1)?.status, "ok", report);
    // Whatever token a Run opened with had expired TOKEN_LIFETIME_MS later: a request
    // accepted after that carried a renewed one.
    const expired = (runs[0]?.startedAt ?? Date.now()) + TOKEN_LIFETIME_MS;
    assert.ok(
      requestsAfter(emulator, "/aiserver.v1.BidiService/BidiAppend", expired) > 0,
      `the held Run took appends after its opening token expired\n${report}`,
    );
    const context = latestModelContext(emulator);
    assert.equal(occurrences(context, "slept-5"), 1, `the tool's result, once:\n${context}`);
    return { text: answer.text, runs, report };
  }

  it("renews the token for the appends of a Run held across a slow tool", async () => {
    const turn = await slowToolTurn(
      "Wait for it\n::shell sleep 10; echo slept-$((2+3))\n::text Waited.",
    );
    assert.match(turn.text, /Waited\./, turn.report);
    assert.equal(turn.runs.length, 1, `one Run:\n${turn.report}`);
  });

  it("re-opens a Run dropped after the slow tool with a current token", async () => {
    const turn = await slowToolTurn(
      "Wait again\n::shell sleep 10; echo slept-$((2+3))\n::fault drop times=1\n::text Waited again.",
    );
    assert.ok(turn.text.length > 0, turn.report);
    const [dropped, rebuilt] = turn.runs;
    assert.equal(turn.runs.length, 2, `the dropped Run and the rebuilt one:\n${turn.report}`);
    assert.equal(dropped?.status, "dropped", turn.report);
    assert.ok(
      (rebuilt?.startedAt ?? 0) > (dropped?.startedAt ?? 0) + TOKEN_LIFETIME_MS,
      `the Run was re-opened after the first one's token expired\n${turn.report}`,
    );
  });
});
