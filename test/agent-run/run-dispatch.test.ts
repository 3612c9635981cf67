import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { RequestContextSchema } from "../../src/gen/agent/v1/request_context_pb.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { bytesToHex } from "../../src/core/bytes.ts";
import { classifyServerMessage } from "../../src/protocol/server/server-message.ts";
import { createMemoryBlobStore } from "../../src/agent-run/blobs/blob-store.ts";
import {
  type ClientMessageInit,
  dispatchServerMessage,
  type DispatchTarget,
} from "../../src/agent-run/run-dispatch.ts";
import { createRunActivity } from "../../src/agent-run/run-activity.ts";

type ServerInit = MessageInitShape<typeof AgentServerMessageSchema>;

function target(): DispatchTarget & { answers: ClientMessageInit[]; lines: string[] } {
  const answers: ClientMessageInit[] = [];
  const lines: string[] = [];
  return {
    answers,
    lines,
    activity: createRunActivity(),
    blobs: createMemoryBlobStore(),
    requestContext: create(RequestContextSchema, {}),
    logger: { enabled: true, line: (text: string) => lines.push(text) },
    answer: (init) => answers.push(init),
  };
}

function dispatch(init: ServerInit, run: DispatchTarget) {
  const message = create(AgentServerMessageSchema, init);
  const bytes = toBinary(AgentServerMessageSchema, message);
  return dispatchServerMessage(classifyServerMessage(message), bytes, run);
}

describe("dispatching classified server messages", () => {
  it("stores a set blob and answers a get for it with its bytes", () => {
    const run = target();
    const blobId = new Uint8Array(32).fill(7);
    const blobData = new TextEncoder().encode("history");
    dispatch({
      message: {
        case: "kvServerMessage",
        value: { id: 1, message: { case: "setBlobArgs", value: { blobId, blobData } } },
      },
    }, run);
    dispatch({
      message: {
        case: "kvServerMessage",
        value: { id: 2, message: { case: "getBlobArgs", value: { blobId } } },
      },
    }, run);
    assert.deepEqual(run.blobs.get(bytesToHex(blobId)), blobData);
    const get = run.answers[1]?.message;
    assert.equal(get?.case, "kvClientMessage");
    assert.deepEqual(get?.value, {
      id: 2,
      message: { case: "getBlobResult", value: { blobData } },
    });
  });

  it("refuses an exec request of an unknown kind with an exec throw and logs it", () => {
    const run = target();
    const events = dispatch({ message: { case: "execServerMessage", value: { id: 9 } } }, run);
    assert.equal(events[0]?.type, "warning");
    const answer = run.answers[0]?.message;
    assert.equal(answer?.case, "execClientControlMessage");
    assert.equal(answer?.value.message?.case, "throw");
    assert.equal(answer?.value.message?.value?.id, 9);
    assert.match(run.lines.join("\n"), /unknown server message.*ExecServerMessage/);
  });

  it("fails with a protocol error for a KV request of an unknown kind instead of hanging", () => {
    const run = target();
    assert.throws(
      () => dispatch({ message: { case: "kvServerMessage", value: { id: 4 } } }, run),
      (error: unknown) => {
        assert.ok(error instanceof CursorError);
        assert.equal(error.code, "protocol");
        assert.match(error.message, /kv request of an unknown kind \(id 4\)/);
        return true;
      },
    );
    assert.deepEqual(run.answers, []);
  });

  it("reports an empty server message as a warning and marks the Run as not replay-safe", () => {
    const run = target();
    const events = dispatch({}, run);
    assert.deepEqual(events.map((e) => e.type), ["warning"]);
    assert.equal(run.activity.visibleOutput, true);
  });

  it("ignores display-only updates without answering", () => {
    const run = target();
    const events = dispatch({
      message: {
        case: "interactionUpdate",
        value: { message: { case: "heartbeat", value: {} } },
      },
    }, run);
    assert.deepEqual(events, []);
    assert.deepEqual(run.answers, []);
  });
});
