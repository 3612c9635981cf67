import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import type { ExecServerMessageSchema } from "../../src/gen/agent/v1/exec_pb.ts";
import { AgentRun } from "../../src/agent-run/agent-run.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { createScriptedTransport } from "../support/scripted-transport.ts";
import type { RunEvent } from "../../src/agent-run/run-events.ts";

async function openRun(
  script: Parameters<typeof createScriptedTransport>[0],
  tailGraceMs?: number,
): Promise<AgentRun> {
  const transport = createScriptedTransport(script);
  const stream = await transport.openRun({
    agentBaseURL: "https://agent.cursor.sh",
    headers: {},
    requestId: "r",
  });
  return new AgentRun(stream, {
    blobs: createMemoryBlobStore(),
    requestContext: create(RequestContextSchema, {}),
    logger: silentLogger,
    ...(tailGraceMs === undefined ? {} : { tailGraceMs }),
  });
}

async function collect(run: AgentRun): Promise<RunEvent[]> {
  const events: RunEvent[] = [];
  for await (const event of run.events()) events.push(event);
  return events;
}

describe("AgentRun", () => {
  it("finishes shortly after turn_ended even when the stream's tail never comes", async () => {
    const run = await openRun((server) => {
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "textDelta", value: { text: "hi" } } },
        },
      });
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "turnEnded", value: { inputTokens: 3n } } },
        },
      });
      return Promise.resolve();
    }, 100);
    const started = Date.now();
    const events = await collect(run);
    assert.ok(Date.now() - started < 2000);
    assert.deepEqual(events.map((e) => e.type), ["text-delta", "turn-ended"]);
  });

  it("still collects the final checkpoint that follows turn_ended", async () => {
    const run = await openRun((server) => {
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "turnEnded", value: {} } },
        },
      });
      server.emit({
        message: {
          case: "conversationCheckpointUpdate",
          value: { tokenDetails: { usedTokens: 9, maxTokens: 10 } },
        },
      });
      server.end();
      return Promise.resolve();
    });
    const events = await collect(run);
    assert.deepEqual(events.map((e) => e.type), ["turn-ended", "checkpoint"]);
  });

  it("reports a stream that ends before turn_ended as an interruption", async () => {
    const run = await openRun((server) => {
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "textDelta", value: { text: "partial" } } },
        },
      });
      server.drop();
      return Promise.resolve();
    });
    await assert.rejects(
      collect(run),
      (error: unknown) => (error as { code?: string }).code === "interrupted",
    );
  });
});

type ExecInit = NonNullable<MessageInitShape<typeof ExecServerMessageSchema>["message"]>;

describe("AgentRun: local_execution_time_ms, as Cursor's client", () => {
  it("stamps every exec client message with the ms since its exec arrived, and a shell exit with the command's time", async () => {
    let clock = 1_000;
    const now = () => clock++;
    const transport = createScriptedTransport(async (server) => {
      const execs: ExecInit[] = [
        { case: "requestContextArgs", value: {} },
        { case: "readArgs", value: { path: "/ws/notes.txt" } },
        { case: "shellStreamArgs", value: { command: "true", workingDirectory: "/ws" } },
      ];
      execs.forEach((message, index) =>
        server.emit({ message: { case: "execServerMessage", value: { id: index + 1, message } } })
      );
      await server.next((m) =>
        m.message.case === "execClientControlMessage" &&
        m.message.value.message.case === "streamClose" && m.message.value.message.value.id === 3
      );
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "turnEnded", value: {} } },
        },
      });
      server.end();
    });
    const stream = await transport.openRun({
      agentBaseURL: "https://agent.cursor.sh",
      headers: {},
      requestId: "r",
    });
    const run = new AgentRun(stream, {
      blobs: createMemoryBlobStore(),
      requestContext: create(RequestContextSchema, {}),
      logger: silentLogger,
      now,
    });
    for await (const event of run.events()) {
      if (event.type !== "exec") continue;
      clock += 40;
      if (event.exec.message.case === "readArgs") {
        await run.answerExec(event.exec.id, [{
          case: "readResult",
          value: { result: { case: "success", value: { path: "/ws/notes.txt" } } },
        }]);
      } else {
        await run.answerExec(event.exec.id, [
          { case: "shellStream", value: { event: { case: "start", value: {} } } },
          { case: "shellStream", value: { event: { case: "stdout", value: { data: "x" } } } },
          { case: "shellStream", value: { event: { case: "exit", value: { code: 0 } } } },
        ]);
      }
    }
    const sent =
      transport.runs[0]?.server.received.flatMap((m) =>
        m.message.case === "execClientMessage" ? [m.message.value] : []
      ) ?? [];
    assert.deepEqual(sent.map((m) => [m.id, m.message.case]), [
      [1, "requestContextResult"],
      [2, "readResult"],
      [3, "shellStream"],
      [3, "shellStream"],
      [3, "shellStream"],
    ]);
    for (const message of sent) {
      assert.equal(typeof message.localExecutionTimeMs, "number");
      assert.ok((message.localExecutionTimeMs ?? -1) >= 0);
    }
    assert.ok((sent[1]?.localExecutionTimeMs ?? 0) >= 40, "the read took the host's 40 ms");
    const shell = sent.slice(2).map((m) => Number(m.localExecutionTimeMs));
    const [start = -1, stdout = -1, exitMs = -1] = shell;
    assert.ok(0 <= start && start < stdout && stdout < exitMs, `grows per message: ${shell}`);
    const exit = sent[4]?.message;
    assert.ok(exit?.case === "shellStream" && exit.value.event.case === "exit");
    assert.equal(exit.value.event.value.localExecutionTimeMs, exitMs);
  });
});
