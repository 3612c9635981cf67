/**
 * The remaining points of the recovery fault matrix, on SSE and HTTP/2 through `ai`: a
 * mid-answer stall with server heartbeats (the Run carries on), a token that expires while
 * the Run is held for a host tool (every later request carries a renewed token), and a
 * blob fetch Cursor cannot serve on a warm turn (the conversation is reseeded from host
 * history). Each shows the intended answer once, within the Run budget, and the next turn
 * is healthy.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonSchema, tool } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { assistant, complete, streamToolTurn, streamTurn, user } from "./support.ts";

/** A host shell that takes `ms` before it answers (the Run is held meanwhile). */
function slowShell(ms: number, dir: string) {
  const { bash } = hostTools(dir);
  return {
    bash: tool({
      description: "Run a shell command",
      inputSchema: jsonSchema<{ command: string }>({
        type: "object",
        properties: { command: { type: "string" } },
        required: ["command"],
      }),
      execute: async (input, options) => {
        await new Promise((resolve) => setTimeout(resolve, ms));
        return await bash.execute?.(input, options) ?? "";
      },
    }),
  };
}

for (const transport of ["sse", "http2"] as const) {
  describe(`recovery fault matrix, other points (${transport})`, () => {
    it("a mid-answer stall with heartbeats: the Run carries on, answered once", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const prompt = "::text Alpha one.\n::fault stall ms=1200 heartbeats\n::text Beta two.";
        const outcome = await streamTurn(cursor, prompt, "ses_stall");
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.equal(outcome.text, "Alpha one.Beta two.");
        assert.equal(emulator.runs().length, 1, "no replay");
        const next = await complete(cursor, [
          user(prompt),
          assistant(outcome.text),
          user("::text Next turn fine."),
        ], "ses_stall");
        assert.equal(next, "Next turn fine.");
      });
    });

    it("a token that expires inside a held Run is renewed for the results", async () => {
      const dir = mkdtempSync(join(tmpdir(), "token-"));
      try {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          const prompt = "::shell echo m-5\n::text After tools.";
          const answer = (await streamToolTurn(cursor, [user(prompt)], "ses_ref", hostTools(dir)))
            .text;
          emulator.auth.setTokenLifetime(1500);
          const before = emulator.runs().length;
          const outcome = await streamToolTurn(
            cursor,
            [user(prompt)],
            "ses_token",
            slowShell(2600, dir),
          );
          assert.equal(outcome.error, undefined, String(outcome.error));
          assert.equal(outcome.text, answer, "the answer, once");
          assert.equal(emulator.runs().length - before, 1, "the held Run went on");
          const next = await complete(cursor, [
            user(prompt),
            ...outcome.messages,
            user("::text Next turn fine."),
          ], "ses_token");
          assert.equal(next, "Next turn fine.");
          assert.deepEqual(emulator.violations(), []);
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });

    it("a blob fetch Cursor cannot serve on a warm turn: reseeded, answered once", async () => {
      const { logger, lines } = createMemoryLogger();
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport, { debug: logger });
        const hi = await complete(cursor, [user("Say hi")], "ses_blob");
        const prompt = "::fault blob-miss times=1\n::text Alpha one.";
        const history = [user("Say hi"), assistant(hi), user(prompt)];
        const text = await complete(cursor, history, "ses_blob");
        assert.equal(
          text,
          "Alpha one.",
          lines.filter((l) => /reset|interrupted|failed|outbound/.test(l)).join("\n"),
        );
        const trace = lines.findIndex((l) => l.startsWith("checkpoint unusable: "));
        const reset = lines.findIndex((l) =>
          l.startsWith("conversation reset: reason=checkpoint-unusable")
        );
        assert.ok(trace !== -1 && reset > trace, "the trace, then the reset");
        assert.match(lines[trace] ?? "", /code=blob_not_found checkpointLen=[1-9]/);
        const next = await complete(
          cursor,
          [...history, assistant(text), user("::text Next turn fine.")],
          "ses_blob",
        );
        assert.equal(next, "Next turn fine.");
      });
    });
  });
}
