import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { checksumPrefix, cursorChecksum } from "../../src/protocol/checksum.ts";
import {
  baseHeaders,
  FALLBACK_CLIENT_VERSION,
  resolveClientVersion,
  streamingHeaders,
  unaryProtoHeaders,
} from "../../src/protocol/headers.ts";

const NEW_YEAR_2026 = Date.UTC(2026, 0, 1);
const INPUT = {
  accessToken: "jwt-token",
  clientVersion: "cli-2026.08.11-e8db854",
  requestId: "11111111-2222-4333-8444-555555555555",
  nowMs: NEW_YEAR_2026,
  machineId: "a".repeat(64),
};

describe("x-cursor-checksum", () => {
  it("matches the published vector at 2026-01-01T00:00:00Z", () => {
    assert.equal(checksumPrefix(NEW_YEAR_2026), "Umxud4TC");
  });

  it("keeps JavaScript's 32-bit shift semantics (bytes 0-1 repeat bytes 4-5)", () => {
    // n = 1767225: with masked shifts the raw bytes are [247,57,0,26,247,57], not [0,0,0,26,247,57].
    const bytes = [40, 32, 24, 16, 8, 0].map((s) => (1767225 >> s) & 255);
    assert.deepEqual(bytes, [247, 57, 0, 26, 247, 57]);
  });

  it("is stable within a ~16.7-minute bucket and changes across buckets", () => {
    assert.equal(checksumPrefix(NEW_YEAR_2026 + 999), checksumPrefix(NEW_YEAR_2026));
    assert.notEqual(checksumPrefix(NEW_YEAR_2026 + 1_000_000), checksumPrefix(NEW_YEAR_2026));
  });

  it("appends the machine id and the optional MAC id", () => {
    assert.equal(cursorChecksum(NEW_YEAR_2026, "m".repeat(64)), `Umxud4TC${"m".repeat(64)}`);
    assert.equal(
      cursorChecksum(NEW_YEAR_2026, "m".repeat(64), "n".repeat(64)),
      `Umxud4TC${"m".repeat(64)}/${"n".repeat(64)}`,
    );
  });
});

describe("headers", () => {
  it("sends the base set on every call", () => {
    assert.deepEqual(baseHeaders(INPUT), {
      "authorization": "Bearer jwt-token",
      "connect-protocol-version": "1",
      "x-cursor-client-type": "cli",
      "x-cursor-client-version": "cli-2026.08.11-e8db854",
      "x-cursor-checksum": `Umxud4TC${"a".repeat(64)}`,
      "x-ghost-mode": "true",
      "x-request-id": "11111111-2222-4333-8444-555555555555",
    });
  });

  it("adds the streaming and unary content types", () => {
    const streaming = streamingHeaders(INPUT);
    assert.equal(streaming["content-type"], "application/connect+proto");
    assert.equal(streaming["x-cursor-streaming"], "true");
    assert.equal(streaming["connect-accept-encoding"], "gzip");
    assert.equal(unaryProtoHeaders(INPUT)["content-type"], "application/proto");
  });

  it("resolves the client version: valid explicit, else valid cached, else the pinned fallback", () => {
    assert.equal(resolveClientVersion("cli-2026.09.02-fa0c06e-lab"), "cli-2026.09.02-fa0c06e-lab");
    assert.equal(
      resolveClientVersion("2026.09.02", "cli-2026.01.09-231024f"),
      "cli-2026.01.09-231024f",
    );
    assert.equal(resolveClientVersion(undefined, "nonsense"), FALLBACK_CLIENT_VERSION);
    assert.equal(resolveClientVersion("cli-"), FALLBACK_CLIENT_VERSION);
  });
});
