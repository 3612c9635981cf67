import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, startHarness } from "../testing/support/harness.ts";
import { driveTurn, newHostState } from "../testing/support/host.ts";

describe("the emulator's interaction queries in strict mode", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness({ replyDeadlineMs: 2_000 });
  });
  after(async () => {
    await harness.emulator.close();
  });

  it("accepts a well-formed answer to each of ::ask, ::mode and ::plan", async () => {
    harness.emulator.clear();
    const outcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::ask Pick | a | b\n::mode plan why\n::plan P: step one",
    }, {});
    assert.equal(outcome.end?.ok, true);
    assert.deepEqual(harness.emulator.violations(), []);
  });

  for (
    const [malformed, message] of [
      ["unasked-question", /answered question "q-never", which was not asked/],
      ["unknown-option", /selected option "o-never", which question "q1" does not offer/],
      ["no-result", /answered AskQuestion without a result/],
    ] as const
  ) {
    it(`records a ${malformed} answer as interaction-answer-invalid and ends the Run`, async () => {
      harness.emulator.clear();
      const outcome = await driveTurn(harness.target("sse"), newHostState(), {
        text: "::ask Pick | a | b",
      }, { malformedAnswers: malformed });
      await harness.emulator.idle();
      const violations = harness.emulator.violations();
      assert.deepEqual(violations.map((v) => v.rule), ["interaction-answer-invalid"]);
      assert.match(violations[0]?.message ?? "", message);
      assert.equal(outcome.end?.ok, false);
      if (outcome.end?.ok === false) {
        assert.equal(outcome.end.error.connectCode, "invalid_argument");
      }
    });
  }
});
