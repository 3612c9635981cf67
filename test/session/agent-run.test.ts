import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { AgentRun } from "../../src/session/agent-run.ts";
import { createMemoryBlobStore } from "../../src/session/blob-store.ts";
import { silentLogger } from "../../src/core/logger.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { createScriptedTransport } from "../support/scripted-transport.ts";
import type { RunEvent } from "../../src/session/run-events.ts";

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
