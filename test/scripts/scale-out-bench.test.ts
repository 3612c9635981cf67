/**
 * `npm run bench -- scale-out` in small: two provider instances behind the round-robin
 * proxy, two conversations of two turns (a tool step each first turn), the chaos
 * variants included, as its own process under a deadline. And the bench's reading of the
 * emulator's records: a turn whose context lacks a user message is lost, one whose
 * context holds a tool result twice is duplicated.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import process from "node:process";
import { analyse } from "../../scripts/bench/scale-out/analysis.ts";
import { newConversation, userText } from "../../scripts/bench/scale-out/client.ts";

const deno = existsSync("node_modules/.bin/deno") ? "node_modules/.bin/deno" : "deno";
const FINAL =
  /^scale-out: lost=(\d+) duplicated=(\d+) warm=([\d.]+)% bytesRatio=([\d.]+) chaosLost=(\d+)$/;

function bench(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(deno, ["run", "-A", "scripts/bench/scale-out.bench.ts"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += String(chunk)));
    child.stderr.on("data", (chunk) => (output += String(chunk)));
    const killer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.once("exit", (code) => {
      clearTimeout(killer);
      resolve({ code, output });
    });
  });
}

describe("the scale-out bench", () => {
  it("ends with one readable line, no turn lost, in a tiny run", async () => {
    const run = await bench({
      BENCH_CONVERSATIONS: "2",
      BENCH_TURNS: "2",
      BENCH_INSTANCES: "2",
      BENCH_CONCURRENCY: "2",
    });
    assert.equal(run.code, 0, run.output.slice(-3000));
    const lines = run.output.trim().split("\n");
    const match = lines.at(-1)?.match(FINAL);
    assert.ok(match, `last line: ${lines.at(-1)}`);
    assert.equal(match[1], "0", "lost");
    assert.equal(match[5], "0", "chaosLost");
    for (const variant of ["single", "spread", "kill", "redis"]) {
      const line = lines.find((l) => l.startsWith(`scale-out: variant=${variant} `));
      assert.match(line ?? "", /completed=4 .*violations=0$/, variant);
    }
  });

  const user = (c: number, t: number, tool: boolean) =>
    `user: ${JSON.stringify([{ type: "text", text: userText(c, t, tool) }])}`;
  const result = (key: string) =>
    `tool: ${
      JSON.stringify([{ type: "tool-result", result: `mcp \`lookup\`: record ${key} is fine` }])
    }`;
  const run = (id: number, turn: number, context: string[], answered = true) => ({
    runId: `run-${id}`,
    continuity: id === 1 ? "cold" : "warm",
    checkpointSupplied: id !== 1,
    action: "user_message_action",
    userText: userText(0, turn, turn === 1),
    status: "ok",
    turnEnded: true,
    execs: turn === 1
      ? [{
        requestCase: "mcpArgs",
        toolCallId: "call_1",
        resultCase: answered ? "mcpResult" : undefined,
      }]
      : [],
    modelCalls: [{ context }],
  });

  it("counts a turn whose context lacks an earlier user message as lost", () => {
    const conversation = newConversation(0, "t");
    conversation.completed.push(1, 2);
    const records = {
      runs: [
        run(1, 1, [user(0, 1, true), result("k0-1")]),
        run(2, 2, [user(0, 2, false)]),
      ],
      violations: [],
    };
    const figures = analyse([conversation], records, { turns: 2, bytesLater: 0, chaosEvents: 0 });
    assert.equal(figures.lost, 1);
    assert.equal(figures.duplicated, 0);
  });

  it("counts a tool result held twice as duplicated, a reseeded tool step as cold", () => {
    const conversation = newConversation(0, "t");
    conversation.completed.push(1, 2);
    const seeded = {
      ...run(2, 1, [user(0, 1, true), result("k0-1")]),
      continuity: "cold",
      checkpointSupplied: false,
      userText: `<conversation_so_far>\n<user>\n${
        userText(0, 1, true)
      }\n</user>\n</conversation_so_far>`,
      execs: [],
    };
    const records = {
      runs: [
        run(1, 1, [user(0, 1, true)], false),
        seeded,
        run(3, 2, [user(0, 1, true), result("k0-1"), result("k0-1"), user(0, 2, false)]),
      ],
      violations: [],
    };
    const figures = analyse([conversation], records, { turns: 2, bytesLater: 0, chaosEvents: 0 });
    assert.equal(figures.lost, 0);
    assert.equal(figures.duplicated, 1);
    assert.equal(figures.warmPercent, 50, "the tool step cold, turn 2 warm");
  });

  it("counts a tool step answered under two call ids as duplicated, not one never answered", () => {
    const figures = (firstAnswered: boolean) => {
      const conversation = newConversation(0, "t");
      conversation.completed.push(1);
      const first = run(1, 1, [user(0, 1, true)], firstAnswered);
      const retried = {
        ...run(2, 1, [user(0, 1, true), result("k0-1")]),
        execs: [{ requestCase: "mcpArgs", toolCallId: "call_2", resultCase: "mcpResult" }],
      };
      const records = { runs: [first, retried], violations: [] };
      return analyse([conversation], records, { turns: 1, bytesLater: 0, chaosEvents: 0 });
    };
    assert.equal(figures(true).duplicated, 1);
    assert.equal(figures(false).duplicated, 0, "the first instance died before the app saw it");
  });
});
