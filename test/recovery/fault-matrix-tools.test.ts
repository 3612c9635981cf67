/**
 * The recovery fault matrix around tool steps, on SSE and HTTP/2, through `ai` (host tools
 * that really run) against the emulator. After the settled checkpoint a failure resumes
 * from it and the host sees the intended answer exactly once; while a tool result drains
 * or right after Cursor acknowledged it there is no checkpoint holding the result, so the
 * turn is rebuilt from host history (the result in the rebuilt context); after an exec
 * request the failure stays final with a prefix of the answer. Every case stays within the
 * Run budget and the next turn of the session is healthy.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { assistant, complete, lastModelContext, streamToolTurn, user } from "./support.ts";

type Expectation = "resumed" | "rebuilt" | "final";

/** Where in the tool turn the fault fires, and what recovery it gets. */
const POINTS: Record<string, { script: (fault: string) => string; expect: Expectation }> = {
  "after the settled checkpoint": {
    script: (fault) => `::shell echo m-17\n::fault ${fault} times=1\n::text After tools.`,
    expect: "resumed",
  },
  "after text past the checkpoint": {
    script: (fault) => `::shell echo m-17\n::text Alpha.\n::fault ${fault} times=1\n::text Beta.`,
    expect: "resumed",
  },
  "while a tool result drains": {
    script: (fault) => `::fault ${fault} times=1 at=tool-result\n::shell echo m-17\n::text Done.`,
    expect: "rebuilt",
  },
  "after the tool-completion ack": {
    script: (fault) => `::fault ${fault} times=1 at=tool-ack\n::shell echo m-17\n::text Done.`,
    expect: "rebuilt",
  },
  "after an exec request": {
    script: (fault) => `::text Looking.\n::fault ${fault} times=1 at=exec\n::shell echo m-17`,
    expect: "final",
  },
};

const FAULTS = ["drop", "goaway", "rst-stream", "error code=unavailable"] as const;

for (const transport of ["sse", "http2"] as const) {
  describe(`recovery fault matrix around tools (${transport})`, () => {
    for (const [point, { script, expect }] of Object.entries(POINTS)) {
      for (const fault of FAULTS) {
        it(`${fault} ${point}: ${expect}`, async () => {
          const dir = mkdtempSync(join(tmpdir(), "matrix-"));
          const { logger, lines } = createMemoryLogger();
          try {
            await withEmulator({}, async (emulator) => {
              const cursor = emulatorProvider(emulator, transport, { debug: logger });
              const tools = hostTools(dir);
              const prompt = script(fault);
              const clean = prompt.split("\n").filter((l) => !l.startsWith("::fault")).join("\n");
              const answer = (await streamToolTurn(cursor, [user(clean)], "ses_ref", tools)).text;
              const before = emulator.runs().length;
              const outcome = await streamToolTurn(cursor, [user(prompt)], "ses_case", tools);
              const runs = emulator.runs().length - before;
              if (expect === "final") {
                assert.notEqual(outcome.error, undefined, "the failure surfaces");
                assert.ok(answer.startsWith(outcome.text), "no duplicate, nothing invented");
                assert.equal(runs, 1, "no replay after stateful work");
              } else {
                assert.equal(outcome.error, undefined, String(outcome.error));
                assert.equal(runs, 2, "the broken Run and one recovery");
                assert.match(lastModelContext(emulator), /m-17/, "the result is in context");
                if (expect === "resumed") {
                  assert.equal(outcome.text, answer, "the answer, exactly once");
                  assert.equal(emulator.runs().at(-1)?.action, "resume_action");
                  assert.ok(lines.some((l) => /^resuming .* checkpoint/.test(l)));
                } else {
                  assert.ok(lines.some((l) => l.includes("reason=interrupted-run")));
                  assert.ok(outcome.text.length > 0, "the rebuilt Run answers");
                }
              }
              const history = outcome.error === undefined
                ? [user(prompt), ...outcome.messages]
                : [user(prompt), assistant(outcome.text)];
              const next = await complete(
                cursor,
                [...history, user("::text Next turn fine.")],
                "ses_case",
                tools,
              );
              assert.equal(next, "Next turn fine.");
              assert.equal(emulator.runs().at(-1)?.status, "ok");
              assert.deepEqual(emulator.violations(), []);
            });
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        });
      }
    }
  });
}
