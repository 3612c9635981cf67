import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError } from "../../src/core/cursor-error.ts";
import { encodeEnvelope, EnvelopeDecoder, FLAG_END_STREAM } from "../../src/protocol/envelope.ts";
import { seededRandom } from "../support/random.ts";

function payload(length: number, seed: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 31 + seed) & 255);
}

describe("Connect envelopes", () => {
  it("round-trips several envelopes fed in one chunk", () => {
    const parts = [payload(0, 1), payload(3, 2), payload(70_000, 3)];
    const bytes = new Uint8Array(parts.reduce((n, p) => n + 5 + p.length, 0));
    let offset = 0;
    for (const p of parts) {
      const e = encodeEnvelope(p);
      bytes.set(e, offset);
      offset += e.length;
    }
    const decoder = new EnvelopeDecoder();
    const out = decoder.push(bytes);
    assert.equal(out.length, 3);
    out.forEach((e, i) => assert.deepEqual(e.data, parts[i]));
    decoder.finish();
  });

  it("reassembles envelopes split at every byte boundary", () => {
    const body = payload(17, 9);
    const bytes = encodeEnvelope(body, FLAG_END_STREAM);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const decoder = new EnvelopeDecoder();
      const got = [...decoder.push(bytes.subarray(0, cut)), ...decoder.push(bytes.subarray(cut))];
      assert.equal(got.length, 1, `cut at ${cut}`);
      assert.equal(got[0]?.flags, FLAG_END_STREAM);
      assert.deepEqual(got[0]?.data, body);
    }
  });

  it("rejects a length over the limit before buffering the payload", () => {
    const decoder = new EnvelopeDecoder(1024);
    const header = encodeEnvelope(payload(2048, 0)).subarray(0, 5);
    assert.throws(() => decoder.push(header), (error: unknown) => {
      assert.ok(error instanceof CursorError);
      assert.equal(error.code, "protocol");
      assert.equal(error.message, "Cannot decode frame: length 2048 exceeds limit 1024");
      return true;
    });
    assert.equal(decoder.bufferedBytes, 0);
    assert.throws(() => decoder.push(new Uint8Array([0])), CursorError);
  });

  it("rejects reserved flag bits", () => {
    const bytes = encodeEnvelope(payload(1, 0), 0x80);
    assert.throws(() => new EnvelopeDecoder().push(bytes), /reserved flag bits set in 0x80/);
  });

  it("reports a truncated stream at finish", () => {
    const decoder = new EnvelopeDecoder();
    decoder.push(encodeEnvelope(payload(10, 0)).subarray(0, 8));
    assert.throws(
      () => decoder.finish(),
      /stream ended inside an envelope with 8 byte\(s\) buffered/,
    );
  });

  it("never throws anything but CursorError and never buffers past the limit on random bytes", () => {
    const random = seededRandom(42);
    for (let round = 0; round < 300; round++) {
      const limit = 64 + Math.floor(random() * 512);
      const decoder = new EnvelopeDecoder(limit);
      const noise = Uint8Array.from(
        { length: Math.floor(random() * 2000) },
        () => Math.floor(random() * 256),
      );
      try {
        for (let i = 0; i < noise.length;) {
          const size = 1 + Math.floor(random() * 40);
          decoder.push(noise.subarray(i, i + size));
          assert.ok(decoder.bufferedBytes <= limit + 5 + 40, "buffer stays bounded");
          i += size;
        }
        decoder.finish();
      } catch (error) {
        assert.ok(error instanceof CursorError, `round ${round}: ${String(error)}`);
        assert.equal(error.code, "protocol");
      }
    }
  });

  it("decodes valid streams identically under random chunkings", () => {
    const random = seededRandom(7);
    const messages = Array.from({ length: 50 }, (_, i) => payload(Math.floor(random() * 300), i));
    const stream = messages.map((m) => encodeEnvelope(m));
    const whole = new Uint8Array(stream.reduce((n, s) => n + s.length, 0));
    let offset = 0;
    for (const s of stream) {
      whole.set(s, offset);
      offset += s.length;
    }
    for (let round = 0; round < 50; round++) {
      const decoder = new EnvelopeDecoder();
      const got: Uint8Array[] = [];
      for (let i = 0; i < whole.length;) {
        const size = 1 + Math.floor(random() * 97);
        got.push(...decoder.push(whole.subarray(i, i + size)).map((e) => e.data));
        i += size;
      }
      decoder.finish();
      assert.deepEqual(got, messages);
    }
  });
});
