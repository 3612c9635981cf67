/**
 * The retry budget of a turn is shared with the host's own retries of that turn: a host
 * that sends the same turn again after the replays were spent gets no new replays.
 *
 * @module
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { streamTurn } from "./support.ts";

async function attempt(
  cursor: ReturnType<typeof emulatorProvider>,
  prompt: string,
  sessionId: string,
): Promise<unknown> {
  return (await streamTurn(cursor, prompt, sessionId)).error;
}

describe("retry budget shared with the host's retries", () => {
  it("a host retry of a turn whose server retries are spent opens one Run and no replay", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse");
      const prompt = "::text Alpha.\n::fault error code=unavailable";
      const first = await attempt(cursor, prompt, "ses_budget");
      assert.equal(emulator.runs().length, 4, "the first Run and three server replays");
      assert.ok(APICallError.isInstance(first) && !first.isRetryable, String(first));
      const retried = await attempt(cursor, prompt, "ses_budget");
      assert.equal(emulator.runs().length, 5, "the host's retry: one Run, no replay");
      assert.ok(APICallError.isInstance(retried), String(retried));
      assert.equal(retried.isRetryable, false);
      assert.match(retried.message, /server retries are spent/);
    });
  });

  it("each host retry of a retryable failure counts: after three, the next opens no Run", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse");
      // The failure comes after an exec request: final for the provider, retryable for the host.
      const prompt = "::text Looking.\n::fault error code=unavailable at=exec\n::shell echo x";
      const first = await attempt(cursor, prompt, "ses_host");
      assert.ok(APICallError.isInstance(first) && first.isRetryable, String(first));
      assert.equal(emulator.runs().length, 1, "no replay after stateful work");
      for (let retry = 1; retry <= 3; retry++) {
        await attempt(cursor, prompt, "ses_host");
        assert.equal(emulator.runs().length, 1 + retry, `host retry ${retry} opens one Run`);
      }
      const refused = await attempt(cursor, prompt, "ses_host");
      assert.equal(emulator.runs().length, 4, "the fourth host retry opens no Run");
      assert.ok(APICallError.isInstance(refused), String(refused));
      assert.equal(refused.isRetryable, false);
      assert.match(refused.message, /Stopped after 3 server retries/);
    });
  });

  it("a failure with a server retry delay goes back to the host, and its retries share the budget", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse");
      // The preset asks the client to wait a second: too long to replay inline.
      const prompt = "::text Alpha.\n::fault unavailable";
      let error = await attempt(cursor, prompt, "ses_delay");
      let calls = 1;
      while (APICallError.isInstance(error) && error.isRetryable && calls < 10) {
        error = await attempt(cursor, prompt, "ses_delay");
        calls++;
      }
      assert.equal(
        emulator.runs().length,
        4,
        "the first Run and three retries, the host's included",
      );
      assert.ok(APICallError.isInstance(error), String(error));
      assert.equal(error.isRetryable, false);
    });
  });

  it("another turn of the same session has its own budget", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse");
      await attempt(cursor, "::text One.\n::fault error code=unavailable", "ses_own");
      const before = emulator.runs().length;
      await attempt(cursor, "::text Two.\n::fault error code=unavailable", "ses_own");
      assert.equal(emulator.runs().length - before, 4, "a new turn gets three replays again");
    });
  });
});
