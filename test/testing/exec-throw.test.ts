import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, startHarness } from "./support/harness.ts";
import { driveTurn, newHostState } from "./support/host.ts";

describe("an exec the client answers with throw", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ replyDeadlineMs: 1500 });
  });
  after(async () => {
    await harness.emulator.close();
  });

  for (const transport of ["sse", "http2"] as const) {
    it(`settles at once with no stream_close, the tool failing with the error (${transport})`, async () => {
      harness.emulator.clear();
      const started = Date.now();
      const outcome = await driveTurn(harness.target(transport), newHostState(), {
        text: "::shell echo x",
      }, { throwExecs: true, omitStreamClose: true });
      assert.ok(outcome.turnEnded, JSON.stringify(harness.emulator.violations()));
      assert.ok(Date.now() - started < 1500, "no wait for a stream_close");
      assert.deepEqual(harness.emulator.violations(), []);
      assert.match(outcome.text, /host refused/);
    });
  }

  it("tolerates a stream_close after the throw", async () => {
    harness.emulator.clear();
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::shell echo x",
    }, { throwExecs: true });
    assert.ok(outcome.turnEnded);
    await harness.emulator.idle();
    assert.deepEqual(harness.emulator.violations(), []);
    assert.match(outcome.text, /host refused/);
  });
});
