/**
 * Resuming from a checkpoint: a transient failure after Cursor saved an eligible
 * checkpoint (the settled one after the tool results were acknowledged) opens a new Run
 * with `resume_action` and that checkpoint, in the same conversation; the host sees the
 * answer exactly once. Two resumed attempts in a row that stream without saving a
 * checkpoint end the turn.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonSchema, tool } from "ai";
import { createMemoryLogger } from "../../../../src/core/logger.ts";
import type { CursorEmulator } from "../../../../src/testing/mod.ts";
import { emulatorProvider, hostTools, withEmulator } from "../../../support/emulator.ts";
import {
  assistant,
  complete,
  lastModelContext,
  streamToolTurn,
  user,
} from "../../../recovery/support.ts";

/** Runs `fn` with a scratch folder for the host's tools. */
async function inScratch<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "resume-"));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The answer of the script without its faults (a clean session). */
async function intended(
  cursor: ReturnType<typeof emulatorProvider>,
  script: string,
  dir: string,
): Promise<string> {
  const clean = script.split("\n").filter((line) => !line.startsWith("::fault")).join("\n");
  const outcome = await streamToolTurn(cursor, [user(clean)], "ses_reference", hostTools(dir));
  assert.equal(outcome.error, undefined, String(outcome.error));
  return outcome.text;
}

function runsOf(emulator: CursorEmulator, conversationId: string) {
  return emulator.runs().filter((run) => run.conversationId === conversationId);
}

for (const transport of ["sse", "http2"] as const) {
  describe(`resume from an eligible checkpoint (${transport})`, () => {
    const scripts = {
      "right after the settled checkpoint":
        "::shell echo marker-42\n::fault FAULT times=1\n::text After tools.",
      "after text that followed the checkpoint":
        "::shell echo marker-42\n::text Alpha one.\n::fault FAULT times=1\n::text Beta two.",
      "with text before the tool": "::text Looking.\n::shell echo marker-42\n::fault FAULT times=1",
    };
    for (const [point, template] of Object.entries(scripts)) {
      for (const fault of ["drop", "goaway", "error code=unavailable"]) {
        it(`${fault} ${point}: resumed in the same conversation, answered once`, async () => {
          const { logger, lines } = createMemoryLogger();
          await inScratch(async (dir) => {
            await withEmulator({}, async (emulator) => {
              const cursor = emulatorProvider(emulator, transport, { debug: logger });
              const script = template.replace("FAULT", fault);
              const answer = await intended(cursor, script, dir);
              const before = emulator.runs().length;
              const outcome = await streamToolTurn(
                cursor,
                [user(script)],
                "ses_resume",
                hostTools(dir),
              );
              assert.equal(outcome.error, undefined, String(outcome.error));
              assert.equal(outcome.text, answer, "the answer, exactly once");
              const runs = emulator.runs().slice(before);
              assert.equal(runs.length, 2, "the broken Run and the resumed one");
              assert.equal(runs[1]?.action, "resume_action");
              assert.equal(runs[1]?.conversationId, runs[0]?.conversationId);
              assert.equal(runs[1]?.continuity, "warm");
              assert.match(lastModelContext(emulator), /marker-42/, "the result is in context");
              assert.ok(lines.some((l) => /^resuming .* checkpoint/.test(l)), lines.join("\n"));
              assert.ok(lines.some((l) => l.startsWith("outbound Run:") && /resume=true/.test(l)));
              assert.ok(!lines.some((l) => l.startsWith("conversation reset: ")), "no rebuild");
              const next = await complete(cursor, [
                user(script),
                ...outcome.messages,
                user("::text Next turn fine."),
              ], "ses_resume");
              assert.equal(next, "Next turn fine.");
              assert.equal(emulator.runs().at(-1)?.continuity, "warm");
              assert.deepEqual(emulator.violations(), []);
            });
          });
        });
      }
    }

    it("a resumed attempt refused for its credential keeps the checkpoint and resumes", async () => {
      const { logger, lines } = createMemoryLogger();
      await inScratch(async (dir) => {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport, { debug: logger });
          const script = "::shell echo marker-42\n::fault drop times=1\n::text After tools.";
          const answer = await intended(cursor, script, dir);
          const { bash } = hostTools(dir);
          const tools = {
            bash: tool({
              description: "Run a shell command",
              inputSchema: jsonSchema<{ command: string }>({
                type: "object",
                properties: { command: { type: "string" } },
                required: ["command"],
              }),
              execute: async (input, options) => {
                // The next Run opened is the resumed one: Cursor refuses its token once.
                emulator.faults.next({ kind: "http-status", status: 401 });
                return await bash.execute?.(input, options) ?? "";
              },
            }),
          };
          const outcome = await streamToolTurn(cursor, [user(script)], "ses_token", tools);
          assert.equal(outcome.error, undefined, String(outcome.error));
          assert.equal(outcome.text, answer, "the answer, exactly once");
          assert.equal(emulator.runs().at(-1)?.action, "resume_action");
          assert.equal(emulator.runs().at(-1)?.status, "ok");
          assert.deepEqual(emulator.faults.pending(), [], "the resumed Run was refused once");
          assert.equal(lines.filter((l) => /^resuming .* checkpoint/.test(l)).length >= 1, true);
          assert.deepEqual(emulator.violations(), []);
        });
      });
    });

    it("two resumed attempts that stream without a checkpoint end the turn", async () => {
      const { logger, lines } = createMemoryLogger();
      await inScratch(async (dir) => {
        await withEmulator({}, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport, { debug: logger });
          const script = "::shell echo marker-42\n::text Alpha one.\n::fault drop times=5\n" +
            "::text Beta two.";
          const outcome = await streamToolTurn(cursor, [user(script)], "ses_cut", hostTools(dir));
          assert.notEqual(outcome.error, undefined, "the turn ends with an error");
          assert.equal(outcome.text, "Alpha one.", "what was shown, once");
          const conversationId = emulator.runs()[0]?.conversationId ?? "";
          const runs = runsOf(emulator, conversationId);
          assert.equal(runs.length, 3, "the broken Run and two resumed attempts");
          assert.deepEqual(runs.map((run) => run.action), [
            "user_message_action",
            "resume_action",
            "resume_action",
          ]);
          assert.equal(lines.filter((l) => /^resuming .* checkpoint/.test(l)).length, 2);
          const next = await complete(cursor, [
            user(script),
            assistant(outcome.text),
            user("::text Next turn fine."),
          ], "ses_cut");
          assert.equal(next, "Next turn fine.");
          assert.deepEqual(emulator.violations(), []);
        });
      });
    });
  });
}
