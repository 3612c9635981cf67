import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { create, toBinary } from "@bufbuild/protobuf";
import { BidiAppendRequestSchema } from "../../src/gen/aiserver/v1/bidi_pb.ts";
import { bytesToHex, hexToBytes } from "../../src/core/bytes.ts";
import {
  decodeBidiAppend,
  encodeBidiAppend,
  encodeBidiAppendInSteps,
} from "../../src/protocol/bidi-append.ts";

/** What protobuf-es encodes for the same append (the reference the fast path must equal). */
function reference(requestId: string, seqno: number, message: Uint8Array): Uint8Array {
  return toBinary(
    BidiAppendRequestSchema,
    create(BidiAppendRequestSchema, {
      data: bytesToHex(message),
      requestId: { requestId },
      appendSeqno: BigInt(seqno),
    }),
  );
}

function patterned(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++) bytes[i] = (i * 31 + 7) % 256;
  return bytes;
}

describe("BidiAppend encoding", () => {
  it("writes exactly the bytes protobuf-es writes, for empty, small and multi-step messages", () => {
    const cases: [string, number, Uint8Array][] = [
      ["r", 0, new Uint8Array(0)],
      ["r-1", 0, new Uint8Array([0x3a, 0x00])],
      ["request-ü", 1, patterned(127)],
      ["r", 300, patterned(128)],
      ["r", 2 ** 40, patterned(70_000)],
    ];
    for (const [requestId, seqno, message] of cases) {
      assert.deepEqual(
        encodeBidiAppend(requestId, seqno, message),
        reference(requestId, seqno, message),
      );
      const decoded = decodeBidiAppend(encodeBidiAppend(requestId, seqno, message));
      assert.deepEqual(decoded.message, message);
      assert.equal(decoded.seqno, seqno);
    }
  });

  it("encodes a large message a slice at a time into one buffer", () => {
    const message = patterned(3 * 1024 * 1024 + 5);
    const steps = encodeBidiAppendInSteps("r", 9, message, 1024 * 1024);
    let yields = 0;
    let step = steps.next();
    for (; step.done !== true; step = steps.next()) yields++;
    assert.equal(yields, 3, "four slices, the loop free between them");
    assert.deepEqual(step.value, reference("r", 9, message));
  });

  it("decodes strict lowercase hex only", () => {
    assert.deepEqual(hexToBytes("00ff7a"), new Uint8Array([0, 255, 0x7a]));
    for (const bad of ["0", "0g", "AB", "a ", "0\u0130", "zz"]) {
      assert.equal(hexToBytes(bad), undefined, JSON.stringify(bad));
    }
    assert.equal(
      bytesToHex(patterned(200)),
      [...patterned(200)].map((b) => b.toString(16).padStart(2, "0")).join(""),
    );
  });
});
