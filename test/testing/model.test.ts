import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { type Harness, startHarness, TRANSPORTS } from "./support/harness.ts";
import { driveTurn, newHostState } from "./support/host.ts";

describe("deterministic model and directives", () => {
  let harness: Harness;
  before(async () => {
    harness = await startHarness();
  });
  after(async () => {
    await harness.emulator.close();
  });

  const turn = (
    text: string,
    transport: "sse" | "http2" = "sse",
    state = newHostState(),
    extra = {},
  ) => driveTurn(harness.target(transport), state, { text, ...extra });

  it("replies without directives in several text deltas and quotes the previous user message", async () => {
    const state = newHostState();
    const conversationId = crypto.randomUUID();
    const first = await driveTurn(harness.target("sse"), state, {
      text: "first question",
      conversationId,
    });
    assert.ok(first.kinds.filter((kind) => kind === "textDelta").length >= 3);
    assert.match(first.text, /Emulator reply \(turn 1\)\. You said: "first question"/);
    const checkpoint = first.checkpoints.at(-1);
    const second = await driveTurn(harness.target("sse"), state, {
      text: "second",
      conversationId,
      ...(checkpoint ? { checkpoint } : {}),
    });
    assert.match(
      second.text,
      /turn 2\). You said: "second"\. Previously you said: "first question"/,
    );
  });

  it("streams thinking deltas for thinking models only", async () => {
    const thinking = await turn("think please", "sse", newHostState(), {
      modelId: "claude-4.5-sonnet",
      parameters: { thinking: "true", context: "200k" },
    });
    assert.ok(thinking.kinds.filter((kind) => kind === "thinkingDelta").length >= 2);
    assert.ok(thinking.kinds.includes("thinkingCompleted"));
    assert.ok((thinking.turnEnded?.reasoningTokens ?? 0n) > 0n);
    const plain = await turn("no thinking", "sse", newHostState(), {
      modelId: "claude-4.5-sonnet",
      parameters: { thinking: "false", context: "200k" },
    });
    assert.equal(plain.kinds.includes("thinkingDelta"), false);
    const effort = await turn("effort", "sse", newHostState(), {
      modelId: "claude-4.1-opus",
      parameters: { effort: "high" },
      maxMode: true,
    });
    assert.ok(effort.thinking.length > 0);
  });

  for (const transport of TRANSPORTS) {
    it(`runs a shell command and quotes its output over ${transport}`, async () => {
      const outcome = await turn("::shell echo 42", transport);
      assert.match(outcome.text, /shell `echo 42` exited 0: 42/);
      assert.ok(outcome.kinds.includes("toolCallDelta"), "stdout forwarded as tool_call_delta");
      const order = outcome.kinds.filter((kind) =>
        ["partialToolCall", "toolCallStarted", "toolCallCompleted"].includes(kind)
      );
      assert.deepEqual(order, [
        "partialToolCall",
        "partialToolCall",
        "toolCallStarted",
        "toolCallCompleted",
      ]);
    });
  }

  it("reports a failing shell command with its exit code", async () => {
    const outcome = await turn("::shell exit 3");
    assert.match(outcome.text, /shell `exit 3` exited 3/);
  });

  it("reads, writes (read then write execs), lists, greps, globs and deletes files", async () => {
    const state = newHostState({ "/ws/a.txt": "alpha TODO\n", "/ws/b.ts": "beta\n" });
    const outcome = await turn(
      "::read a.txt\n::write c.txt hello\\nworld\n::ls /ws\n::grep TODO\n::glob *.ts\n::delete b.ts",
      "sse",
      state,
    );
    assert.match(outcome.text, /read `a.txt`: alpha TODO/);
    assert.match(outcome.text, /write `c.txt`: wrote 2 line\(s\)/);
    assert.equal(state.files.get("/ws/c.txt"), "hello\nworld");
    assert.match(outcome.text, /ls `\/ws`: .*a.txt/);
    assert.match(outcome.text, /grep `TODO`: \/ws\/a.txt/);
    assert.match(outcome.text, /glob `\*.ts`: \/ws\/b.ts/);
    assert.match(outcome.text, /delete `b.ts`: deleted/);
    assert.equal(state.files.has("/ws/b.ts"), false);
    const execs = harness.emulator.runs().at(-1)?.execs.map((exec) => exec.requestCase);
    assert.deepEqual(execs, [
      "requestContextArgs",
      "readArgs",
      "readArgs",
      "writeArgs",
      "lsArgs",
      "grepArgs",
      "grepArgs",
      "deleteArgs",
    ]);
  });

  it("calls advertised MCP tools and refuses unadvertised ones", async () => {
    const outcome = await turn('::mcp opencode-bash {"command":"ls"}\n::mcp nope {}');
    assert.match(outcome.text, /mcp `opencode-bash`: mcp bash ok/);
    assert.match(
      outcome.text,
      /mcp `nope`: the client does not advertise this tool \(advertised: opencode-bash\)/,
    );
    const mcp = harness.emulator.runs().at(-1)?.execs.filter((exec) =>
      exec.requestCase === "mcpArgs"
    );
    assert.equal(mcp?.length, 1);
  });

  it("spawns a subagent", async () => {
    const outcome = await turn("::subagent explore find the config");
    assert.match(outcome.text, /subagent `explore`: subagent explore finished: find the config/);
  });

  it("asks a question, switches mode and creates a plan through interaction queries", async () => {
    const outcome = await turn(
      "::ask Pick one | red | green\n::mode plan big change\n::plan Refactor: do it",
    );
    assert.match(outcome.text, /ask "Pick one": answered "red"/);
    assert.match(outcome.text, /mode `plan`: approved/);
    assert.match(outcome.text, /plan "Refactor": accepted at file:\/\/\/ws\/plan.md/);
    const queries = harness.emulator.runs().at(-1)?.interactions.map((query) => query.queryCase);
    assert.deepEqual(queries, [
      "askQuestionInteractionQuery",
      "switchModeRequestQuery",
      "createPlanRequestQuery",
    ]);
  });

  it("accepts asynchronous ask-question answers and rejections", async () => {
    const asyncOutcome = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::ask Sure? | yes | no",
    }, { asyncAsk: true });
    assert.match(asyncOutcome.text, /answered "yes" \(async\)/);
    assert.equal(harness.emulator.runs().at(-1)?.variants.asyncAskQuestion, true);
    const rejected = await driveTurn(harness.target("sse"), newHostState(), {
      text: "::ask Sure? | yes\n::mode ask",
    }, { rejectQueries: true });
    assert.match(rejected.text, /ask "Sure\?": rejected \(headless\)/);
    assert.match(rejected.text, /mode `ask`: rejected \(stay\)/);
  });

  it("runs ::parallel tools concurrently: every exec is sent before any result arrives", async () => {
    const outcome = await turn(
      "::parallel\n::shell echo a\n::shell echo b\n::read README.md\n::ls\n::end",
      "http2",
    );
    assert.match(outcome.text, /echo a` exited 0: a/);
    assert.match(outcome.text, /echo b` exited 0: b/);
    const lastRequest = outcome.frames.findLastIndex((frame) =>
      frame.message.case === "execServerMessage" &&
      frame.message.value.message.case !== "requestContextArgs"
    );
    const firstCompleted = outcome.kinds.indexOf("toolCallCompleted");
    assert.ok(
      lastRequest < firstCompleted,
      "all four execs were sent before any tool call completed",
    );
    const staged = outcome.frames.find((frame) =>
      frame.message.case === "conversationCheckpointUpdate" &&
      frame.message.value.pendingToolCalls.length === 4
    );
    assert.ok(staged, "one staged checkpoint lists the whole batch");
  });

  it("emits literal text, extra thinking, N kilobytes and N deltas", async () => {
    const text = await turn("::text Exactly this.");
    assert.equal(text.text, "Exactly this.");
    const think = await turn("::think deep thought\n::text done");
    assert.equal(think.thinking, "deep thought");
    const emit = await turn("::emit 8kb");
    assert.equal(emit.text.length, 8192);
    assert.equal(emit.kinds.filter((kind) => kind === "textDelta").length, 8);
    const deltas = await turn("::deltas 500");
    assert.equal(deltas.kinds.filter((kind) => kind === "textDelta").length, 500);
    assert.ok(deltas.text.startsWith("d1 d2 d3 "));
  });

  it("keeps heartbeating while the model sleeps", async () => {
    const slow = await startHarness({ heartbeatIntervalMs: 50 });
    try {
      const outcome = await driveTurn(slow.target("sse"), newHostState(), {
        text: "::sleep 300\n::text awake",
      });
      assert.equal(outcome.text, "awake");
      assert.ok(outcome.kinds.filter((kind) => kind === "heartbeat").length >= 3);
    } finally {
      await slow.emulator.close();
    }
  });

  it("says what was wrong with a malformed directive", async () => {
    const outcome = await turn("::frobnicate now");
    assert.match(outcome.text, /Unknown emulator directive "::frobnicate"/);
  });
});
