/**
 * HTTP/2 Runs over TLS, as Cursor serves them (one port, ALPN `h2` and `http/1.1`, a
 * certificate from a CA the client trusts), against the emulator in its own process: held
 * Runs with warm turns, a GOAWAY in the middle of a turn, and Runs kept on one connection.
 * Runs on Deno, Node and Bun: each runtime's own `node:http2` client.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { createCursor } from "../../node.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import { type EmulatorProcess, startEmulatorProcess } from "../../scripts/lib/emulator-process.ts";

const CA = readFileSync("test/testing/fixtures/local-ca.pem", "utf8");

async function reply(
  cursor: ReturnType<typeof createCursor>,
  prompt: LanguageModelV3Prompt,
  sessionId: string,
): Promise<string> {
  const { stream } = await cursor("gpt-5").doStream({
    prompt,
    providerOptions: { cursor: { sessionId } },
  });
  let text = "";
  for await (const part of stream) {
    if (part.type === "error") throw part.error;
    if (part.type === "text-delta") text += part.delta;
  }
  return text;
}

describe("HTTP/2 over TLS against an emulator in another process", () => {
  let emulator: EmulatorProcess;
  before(async () => {
    emulator = await startEmulatorProcess({
      args: ["--no-auth", "--quiet", "--tls", "--latency", "0"],
      lifetimeMs: 120_000,
    });
  });
  after(async () => await emulator?.stop());

  it("holds warm turns and recovers from a GOAWAY, on one connection until it", async () => {
    assert.match(emulator.url, /^https:/);
    const transport = createHttp2Transport({ connectOptions: { ca: CA } });
    const cursor = createCursor({
      accessToken: "test",
      apiBaseURL: emulator.url,
      agentBaseURL: emulator.url,
      allowLoopback: true,
      transport,
      env: {},
    });
    try {
      const prompt: LanguageModelV3Prompt = [];
      for (let turn = 1; turn <= 5; turn++) {
        prompt.push({ role: "user", content: [{ type: "text", text: `::text turn ${turn}` }] });
        const text = await reply(cursor, prompt, "tls");
        assert.equal(text, `turn ${turn}`);
        prompt.push({ role: "assistant", content: [{ type: "text", text }] });
      }
      assert.equal((await emulator.network()).connections, 1, "five turns, one connection");
      prompt.push({
        role: "user",
        content: [{ type: "text", text: "::text Before.\n::fault goaway times=1\n::text After." }],
      });
      assert.match(await reply(cursor, prompt, "tls"), /After\./);
      assert.equal((await emulator.network()).connections, 2, "a new connection after GOAWAY");
    } finally {
      transport.close();
    }
  });
});
