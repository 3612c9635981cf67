import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";

const session = (id: string) => ({ providerOptions: { cursor: { sessionId: id } } });

/** Runs `fn` with a fresh temporary project folder, removed afterwards. */
async function inWorkspace(fn: (ws: { dir: string }) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cursor-tools-"));
  try {
    await fn({ dir });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("tools through a real host loop against the emulator", () => {
  it("runs a shell command as the host's bash and quotes its real output and exit status", async () => {
    await inWorkspace(async (ws) => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const result = streamText({
          model: cursor("gpt-5"),
          prompt: "::shell printf 'alpha\\n'; exit 4",
          tools: hostTools(ws.dir),
          stopWhen: stepCountIs(5),
          ...session("ses_shell"),
        });
        const text = await result.text;
        assert.match(text, /exited 4/);
        assert.match(text, /alpha/);
        assert.equal(emulator.runs().length, 1, "the result went back on the held Run");
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });

  it("reports a host timeout to Cursor as an aborted shell (exit 124)", async () => {
    await inWorkspace(async (ws) => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const slowBash = hostTools(ws.dir, { shellTimeoutMs: 300 }).bash;
        const text = await streamText({
          model: cursor("gpt-5"),
          prompt: "::shell sleep 3",
          tools: { bash: slowBash },
          stopWhen: stepCountIs(5),
          ...session("ses_t"),
        }).text;
        assert.match(text, /was aborted/, "Cursor saw an aborted (exit 124) shell, not a success");
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });

  it("reads a file and returns its raw text (no line numbers)", async () => {
    await inWorkspace(async (ws) => {
      writeFileSync(join(ws.dir, "notes.txt"), "first line\nsecond line\n");
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const text = await streamText({
          model: cursor("gpt-5"),
          prompt: `::read ${join(ws.dir, "notes.txt")}`,
          tools: hostTools(ws.dir),
          stopWhen: stepCountIs(5),
          ...session("ses_r"),
        }).text;
        assert.match(text, /first line/);
        assert.doesNotMatch(text, /1: first line/);
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });

  it("edits a CRLF file through apply_patch when the host offers only that, keeping CRLF", async () => {
    await inWorkspace(async (ws) => {
      const file = join(ws.dir, "crlf.txt");
      writeFileSync(file, "one\r\ntwo\r\nthree\r\n");
      const patches: string[] = [];
      const applyPatch = tool({
        description: "Apply a patch",
        inputSchema: jsonSchema<{ patchText: string }>({
          type: "object",
          properties: { patchText: { type: "string" } },
          required: ["patchText"],
        }),
        execute: ({ patchText }) => {
          patches.push(patchText);
          writeFileSync(file, applyUpdate(readFileSync(file, "utf8"), patchText));
          return "Applied patch";
        },
      });
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const tools = { read: hostTools(ws.dir).read, apply_patch: applyPatch };
        await streamText({
          model: cursor("gpt-5"),
          prompt: `::write ${file} one\\nTWO\\nthree\\n`,
          tools,
          stopWhen: stepCountIs(6),
          ...session("ses_p"),
        }).text;
        assert.equal(patches.length, 1);
        assert.match(patches[0] ?? "", /\*\*\* Update File: .*crlf\.txt/);
        assert.equal(readFileSync(file, "utf8"), "one\r\nTWO\r\nthree\r\n");
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });

  it("calls a host plugin tool advertised as an MCP tool", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const calls: unknown[] = [];
      const jira = tool({
        description: "Search Jira issues",
        inputSchema: jsonSchema<{ query: string }>({
          type: "object",
          properties: { query: { type: "string" } },
          required: ["query"],
        }),
        execute: (input) => {
          calls.push(input);
          return "PROJ-7 Crash on start";
        },
      });
      const text = await streamText({
        model: cursor("gpt-5"),
        prompt: '::mcp jira_search {"query":"crash"}',
        tools: { jira_search: jira },
        stopWhen: stepCountIs(5),
        ...session("ses_m"),
      }).text;
      assert.deepEqual(calls, [{ query: "crash" }]);
      assert.match(text, /PROJ-7/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("refuses a tool the host did not offer, and the model hears why", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const text = await streamText({
        model: cursor("gpt-5"),
        prompt: "::delete /etc/hosts",
        tools: {},
        stopWhen: stepCountIs(3),
        ...session("ses_x"),
      }).text;
      assert.match(text, /No host tool for delete/);
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("emits parallel exec requests as parallel tool calls in one step", async () => {
    await inWorkspace(async (ws) => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const result = streamText({
          model: cursor("gpt-5"),
          prompt: "::parallel\n::shell echo left\n::shell echo right\n::end",
          tools: hostTools(ws.dir),
          stopWhen: stepCountIs(5),
          ...session("ses_par"),
        });
        const text = await result.text;
        const steps = await result.steps;
        assert.equal(steps[0]?.toolCalls.length, 2, "both calls in the first step");
        assert.match(text, /left/);
        assert.match(text, /right/);
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });

  it("keeps a 10-turn session warm: same conversation, same request-context bytes, cache reads at the ideal", async () => {
    await inWorkspace(async (ws) => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const messages: ModelMessage[] = [];
        for (let turn = 1; turn <= 10; turn++) {
          messages.push({
            role: "user",
            content: turn % 3 === 0 ? `::shell echo turn-${turn}` : `Turn ${turn}, please continue`,
          });
          const result = streamText({
            model: cursor("gpt-5"),
            system: "You are helpful.",
            messages,
            tools: hostTools(ws.dir),
            stopWhen: stepCountIs(5),
            ...session("ses_ten"),
          });
          await result.text;
          messages.push(...(await result.response).messages);
        }
        const runs = emulator.runs();
        assert.equal(runs.length, 10);
        assert.equal(runs[0]?.continuity, "cold");
        assert.ok(
          runs.slice(1).every((r) => r.continuity === "warm"),
          "every later turn continues from the checkpoint",
        );
        assert.equal(new Set(runs.map((r) => r.conversationId)).size, 1);
        assert.equal(
          new Set(runs.map((r) => r.requestContextSha256)).size,
          1,
          "request context bytes reused",
        );
        for (const run of runs.slice(1)) {
          assert.ok(run.counters.cacheRead > 0);
          assert.equal(run.counters.cacheRead, run.idealCacheRead);
        }
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
});

describe("held Runs under a host that cleans up after each step", () => {
  it("survives the step's abort signal and a cancelled reader after finish: tool-calls", async () => {
    await inWorkspace(async (ws) => {
      await withEmulator({}, async (emulator) => {
        const model = emulatorProvider(emulator)("gpt-5");
        const headers = { "x-session-affinity": "ses_cleanup" };
        const tools = [{
          type: "function" as const,
          name: "bash",
          inputSchema: {
            type: "object" as const,
            properties: { command: { type: "string" as const } },
          },
        }];
        const prompt = [{
          role: "user" as const,
          content: [{ type: "text" as const, text: "::shell echo cleaned-up" }],
        }];
        const step = new AbortController();
        const first = await model.doStream({ prompt, tools, headers, abortSignal: step.signal });
        const reader = first.stream.getReader();
        let call: { toolCallId: string; input: string } | undefined;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          if (value.type === "tool-call") call = value;
          if (value.type === "finish") break;
        }
        // What OpenCode does when a step ends: cancel the reader and abort the step's signal.
        await reader.cancel();
        step.abort();
        assert.ok(call);
        const command = (JSON.parse(call.input) as { command: string }).command;
        const output = hostTools(ws.dir).bash.execute?.({ command }, {
          toolCallId: call.toolCallId,
          messages: [],
        });
        const second = await model.doStream({
          prompt: [
            ...prompt,
            {
              role: "assistant",
              content: [{
                type: "tool-call",
                toolCallId: call.toolCallId,
                toolName: "bash",
                input: { command },
              }],
            },
            {
              role: "tool",
              content: [{
                type: "tool-result",
                toolCallId: call.toolCallId,
                toolName: "bash",
                output: { type: "text", value: String(await output) },
              }],
            },
          ],
          tools,
          headers,
          abortSignal: new AbortController().signal,
        });
        let text = "";
        for await (const part of second.stream) if (part.type === "text-delta") text += part.delta;
        assert.match(text, /cleaned-up/);
        assert.equal(emulator.runs().length, 1, "the same Run continued");
        assert.deepEqual(emulator.violations(), []);
      });
    });
  });
});

/** Applies one "*** Update File" hunk produced for a whole-file write (test host only). */
function applyUpdate(content: string, patch: string): string {
  const lines = patch.split("\n");
  const hunk = lines.slice(lines.indexOf("@@") + 1).filter((l) => !l.startsWith("***"));
  const before = hunk.filter((l) => l.startsWith(" ") || l.startsWith("-")).map((l) => l.slice(1))
    .join("\n");
  const after = hunk.filter((l) => l.startsWith(" ") || l.startsWith("+")).map((l) => l.slice(1))
    .join("\n");
  const source = content.split("\n").join("\n");
  assert.ok(source.includes(before), "the hunk's old lines are in the file");
  return source.replace(before, after);
}
