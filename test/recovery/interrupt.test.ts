import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { assistant, complete, interruptAfter, lastModelContext, user } from "./support.ts";

for (const transport of ["sse", "http2"] as const) {
  describe(`interrupt then type (${transport})`, () => {
    it("keeps the interrupted request and its partial answer in Cursor's context, streamed once", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const firstAnswer = await complete(cursor, [user("Say hi")], "ses_mid");
        const asked = "Write the report\n::text First half.\n::sleep 3s\n::text Second half.";
        const history = [user("Say hi"), assistant(firstAnswer), user(asked)];
        const seen = await interruptAfter(cursor, history, "ses_mid", "First half.");
        assert.equal(seen, "First half.");
        const next = [...history, assistant(seen), user("::text Continuing now.")];
        const text = await complete(cursor, next, "ses_mid");
        assert.equal(text, "Continuing now.", "nothing of the interrupted answer streams again");
        const context = lastModelContext(emulator);
        assert.match(context, /Write the report/, "the interrupted request is in Cursor's context");
        assert.match(context, /First half\./, "the partial answer is in Cursor's context");
        assert.doesNotMatch(context, /^assistant: .*Second half/m, "nothing the user did not see");
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
}
