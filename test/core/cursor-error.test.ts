import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { CursorError, redactSecrets } from "../../src/core/cursor-error.ts";
import { bytesToHex, hexToBytes, sha256Hex } from "../../src/core/bytes.ts";

describe("CursorError", () => {
  it("defaults retryable from the code and replaySafe to false", () => {
    assert.equal(new CursorError("unavailable", "x").retryable, true);
    assert.equal(new CursorError("unauthenticated", "x").retryable, false);
    assert.equal(new CursorError("unavailable", "x").replaySafe, false);
  });

  it("never carries secrets in its message", () => {
    const error = new CursorError(
      "unauthenticated",
      "Key crsr_0123456789abcdef rejected; header Bearer eyJhbGciOi.eyJzdWIiOiJ4In0.c2ln; access_token=abcdefghijklmnop",
    );
    assert.doesNotMatch(error.message, /crsr_0123|eyJ|abcdefghijklmnop/);
    assert.match(error.message, /\[redacted\]/);
  });

  it("classifies thrown values with from()", () => {
    const abort = new DOMException("aborted", "AbortError");
    assert.equal(CursorError.from(abort).code, "canceled");
    assert.equal(CursorError.from(new DOMException("t", "TimeoutError")).code, "timeout");
    const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" });
    assert.equal(CursorError.from(reset).code, "network");
    assert.equal(CursorError.from(new TypeError("fetch failed")).code, "network");
    const original = new CursorError("bad_model", "x");
    assert.equal(CursorError.from(original), original);
    const weird = CursorError.from({ odd: true });
    assert.equal(weird.code, "internal");
    assert.deepEqual(weird.cause, { odd: true });
  });

  it("redacts API keys, bearer tokens and JWTs", () => {
    assert.equal(redactSecrets("use crsr_abc"), "use [redacted]");
    assert.equal(redactSecrets("refresh_token: abcdefgh12345"), "refresh_token: [redacted]");
  });
});

describe("bytes", () => {
  it("hex round-trips and rejects non-lowercase or odd input", () => {
    assert.equal(bytesToHex(new Uint8Array([0, 15, 255])), "000fff");
    assert.deepEqual(hexToBytes("000fff"), new Uint8Array([0, 15, 255]));
    assert.equal(hexToBytes("0F"), undefined);
    assert.equal(hexToBytes("abc"), undefined);
    assert.equal(hexToBytes("zz"), undefined);
  });

  it("hashes with WebCrypto SHA-256", async () => {
    assert.equal(
      await sha256Hex("abc"),
      "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    );
  });
});
