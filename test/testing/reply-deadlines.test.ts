/**
 * Reply deadlines of the emulator's answer channels, on a manual clock: a request is late
 * only when a later check still finds it unanswered, so an answer a stalled process had not
 * read yet when its overdue timer ran counts as on time, and a client that never answers
 * (or answers too late) is still reported.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create } from "@bufbuild/protobuf";
import { ExecClientMessageSchema } from "../../src/gen/agent/v1/exec_pb.ts";
import { KvClientMessageSchema } from "../../src/gen/agent/v1/kv_pb.ts";
import { Replies } from "../../src/testing/emulator/io/replies.ts";
import type { RuleName } from "../../src/testing/mod.ts";

function channels(deadlineMs: number) {
  const clock = { now: 0 };
  const reported: { rule: RuleName; message: string }[] = [];
  const replies = new Replies({
    now: () => clock.now,
    deadlineMs,
    waitForStreamClose: true,
    violation: (rule, message) => reported.push({ rule, message }),
    timeout: (rule, message) => reported.push({ rule, message }),
    shellOutput: () => {},
    variant: () => {},
  });
  return { clock, reported, replies };
}

const blobStored = (id: number) =>
  create(KvClientMessageSchema, { id, message: { case: "setBlobResult", value: {} } });

describe("reply deadlines", () => {
  it("an answer read right after the overdue check (a stalled process) is on time", async () => {
    const { clock, reported, replies } = channels(300);
    const kv = replies.kv("set");
    clock.now = 800; // the process stalled: the timer runs before the socket is read
    assert.equal(replies.checkDeadlines(), false);
    replies.onKv(blobStored(kv.id));
    clock.now = 900;
    assert.equal(replies.checkDeadlines(), false);
    assert.deepEqual(reported, []);
    assert.equal((await kv.done).message.case, "setBlobResult");
  });

  it("a request still unanswered a quarter deadline after it was found late is reported", () => {
    const { clock, reported, replies } = channels(300);
    replies.kv("get");
    clock.now = 301;
    assert.equal(replies.checkDeadlines(), false);
    clock.now = 370;
    assert.equal(replies.checkDeadlines(), false);
    clock.now = 376;
    assert.equal(replies.checkDeadlines(), true);
    assert.deepEqual(reported, [{
      rule: "reply-deadline-exceeded",
      message: "KV request 0 was not answered within 300 ms",
    }]);
  });

  it("each late request is confirmed on its own sighting", () => {
    const { clock, reported, replies } = channels(300);
    const exec = replies.exec("requestContextArgs", false);
    replies.kv("get");
    clock.now = 301;
    assert.equal(replies.checkDeadlines(), false);
    replies.onExecMessage(
      create(ExecClientMessageSchema, {
        id: exec.id,
        message: { case: "requestContextResult", value: {} },
      }),
    );
    clock.now = 380;
    assert.equal(replies.checkDeadlines(), false, "the KV request was first found late now");
    clock.now = 455;
    assert.equal(replies.checkDeadlines(), true);
    assert.deepEqual(reported.map((r) => r.message), [
      "KV request 0 was not answered within 300 ms",
    ]);
  });
});
