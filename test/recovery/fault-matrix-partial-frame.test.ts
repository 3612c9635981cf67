/**
 * A frame that never completes: a hostile proxy in front of the emulator drips the rest of
 * a Run's answer one byte at a time once a frame is under way. The partial-frame limit
 * (ADR 170) ends the turn with a clear, final error instead of the Run hanging on the
 * silence limit and its replays; a frame that completes in time is untouched.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "ai";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { createSseTransport } from "../../src/transport/sse-transport.ts";
import type { AgentTransport } from "../../src/transport/agent-transport.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { startDrippingProxy } from "../support/dripping-proxy.ts";
import { opencodeVerdict } from "../support/opencode-retry-rule.ts";
import { streamTurn } from "./support.ts";

/** The test's own bound on a turn (a harness limit: the product's limits are far below it). */
const HARNESS_GUARD_MS = 20_000;

async function guarded<T>(work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error("the turn hung")), HARNESS_GUARD_MS);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}

function transportOf(kind: "sse" | "http2"): AgentTransport & { close?: () => void } {
  // A short base limit keeps the test quick; frames still get their size-based time.
  return kind === "sse"
    ? createSseTransport({ partialFrameMs: 300 })
    : createHttp2Transport({ partialFrameMs: 300 });
}

for (const kind of ["sse", "http2"] as const) {
  describe(`a frame that never completes (${kind})`, () => {
    it("ends the turn with a final partial-frame error, no replay", async () => {
      await withEmulator({}, async (emulator) => {
        const origin = kind === "sse" ? emulator.url : emulator.http2Url ?? emulator.url;
        const proxy = await startDrippingProxy(origin, { afterBytes: 6_000, everyMs: 100 });
        const transport = transportOf(kind);
        try {
          const cursor = emulatorProvider(emulator, kind, {
            transport,
            agentBaseURL: proxy.url,
          });
          const outcome = await guarded(
            streamTurn(cursor, "::text Alpha.\n::emit 64kb\n::text Omega.", "ses_drip"),
          );
          assert.ok(proxy.dripping() > 0, "the proxy dripped the answer");
          assert.ok(APICallError.isInstance(outcome.error), String(outcome.error));
          assert.match(outcome.error.message, /partial-frame limit/);
          assert.equal(outcome.error.isRetryable, false);
          assert.equal(opencodeVerdict(outcome.error), "final", outcome.error.message);
          assert.ok(!outcome.text.includes("Omega."), "the turn did not complete");
          assert.equal(emulator.runs().length, 1, "no replay through the same path");
        } finally {
          transport.close?.();
          await proxy.close();
        }
      });
    });

    it("a slow proxy that completes each frame in time does not trip it", async () => {
      await withEmulator({}, async (emulator) => {
        const origin = kind === "sse" ? emulator.url : emulator.http2Url ?? emulator.url;
        // After the first bytes, 64 bytes every 5 ms: small frames complete well within 300 ms.
        const proxy = await startDrippingProxy(origin, { afterBytes: 400, everyMs: 5, bytes: 64 });
        const transport = transportOf(kind);
        try {
          const cursor = emulatorProvider(emulator, kind, {
            transport,
            agentBaseURL: proxy.url,
          });
          const outcome = await guarded(streamTurn(cursor, "::text Alpha beta gamma.", "ses_ok"));
          assert.ok(proxy.dripping() > 0, "the proxy slowed the answer");
          assert.equal(outcome.error, undefined, String(outcome.error));
          assert.equal(outcome.text, "Alpha beta gamma.");
        } finally {
          transport.close?.();
          await proxy.close();
        }
      });
    });
  });
}
