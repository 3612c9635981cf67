/**
 * `CURSOR_PROVIDER_RECOVERY_DEBUG=1`: the debug log holds the recovery lines of an
 * interrupted turn (interrupted Run, resume, outbound Run) and nothing else: no prompt
 * text, no tool payload, no other diagnostics.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFileDebugLogger } from "../../src/adapters/node/files/debug-log-file.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";
import { streamToolTurn, user } from "./support.ts";

const PROMPT_MARK = "Recognisable-prompt-7731";
const PAYLOAD_MARK = "recognisable-payload-4410";

async function interruptedTurn(env: Record<string, string>, dir: string): Promise<string> {
  const file = join(dir, "debug.log");
  const announced: string[] = [];
  const debug = createFileDebugLogger({
    env: { ...env, CURSOR_PROVIDER_DEBUG_FILE: file },
    announce: (line) => announced.push(line),
  });
  await withEmulator({}, async (emulator) => {
    const cursor = emulatorProvider(emulator, "sse", { debug });
    const prompt =
      `${PROMPT_MARK}\n::shell echo ${PAYLOAD_MARK}\n::fault drop times=1\n::text Done.`;
    const outcome = await streamToolTurn(cursor, [user(prompt)], "ses_debug", hostTools(dir));
    assert.equal(outcome.error, undefined, String(outcome.error));
    assert.equal(emulator.runs().at(-1)?.action, "resume_action");
  });
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

describe("CURSOR_PROVIDER_RECOVERY_DEBUG", () => {
  it("records the recovery lines without prompts or tool payloads", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recovery-debug-"));
    try {
      const log = await interruptedTurn({ CURSOR_PROVIDER_RECOVERY_DEBUG: "1" }, dir);
      assert.match(log, /Run interrupted: /);
      assert.match(log, /resuming .* checkpoint/);
      assert.match(log, /outbound Run: .*resume=true/);
      assert.doesNotMatch(log, new RegExp(PROMPT_MARK), "no prompt text");
      assert.doesNotMatch(log, new RegExp(PAYLOAD_MARK), "no tool payload");
      assert.doesNotMatch(log, /finish: |billing: |cache diagnosis: /, "recovery lines only");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("CURSOR_PROVIDER_DEBUG records everything; neither flag records nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recovery-debug-"));
    try {
      const full = await interruptedTurn({ CURSOR_PROVIDER_DEBUG: "true" }, dir);
      assert.match(full, /resuming .* checkpoint/);
      assert.match(full, /finish: /);
      rmSync(join(dir, "debug.log"), { force: true });
      assert.equal(await interruptedTurn({}, dir), "");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
