/**
 * Runs held over HTTP/2 inside real OpenCode (Bun's `node:http2` client), against the
 * emulator served as Cursor serves: TLS on one port with ALPN `h2` and `http/1.1`, its
 * certificate from a local CA that OpenCode trusts through `NODE_EXTRA_CA_CERTS`. The
 * provider has no `transport` option: the default (`"auto"`). A text turn, a warm turn, a tool step, a turn
 * stopped mid-stream and a GOAWAY in the middle of a turn: every Run the emulator records
 * went over HTTP/2, and the debug log has no transport fallback.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { ToolPart } from "@opencode-ai/sdk";
import { type CursorEmulator, startCursorEmulator } from "../../src/testing/mod.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

const FIXTURES = "test/testing/fixtures";

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}

describe("HTTP/2 over TLS inside real OpenCode (Bun)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({
      tls: {
        cert: readFileSync(`${FIXTURES}/local-ca-localhost-cert.pem`),
        key: readFileSync(`${FIXTURES}/local-ca-localhost-key.pem`),
      },
    });
    sandbox = await createSandbox({
      CURSOR_API_BASE_URL: emulator.url,
      NODE_EXTRA_CA_CERTS: resolve(`${FIXTURES}/local-ca.pem`),
    });
    const config = chatConfig(built, emulator.url) as {
      provider: { cursor: { options: Record<string, unknown> } };
    };
    assert.equal(config.provider.cursor.options.transport, undefined, "the default transport");
    await sandbox.writeProjectConfig(config);
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_http2_key" } });
    server = await startServer(sandbox);
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  async function explain(error: unknown): Promise<string> {
    const log = (await sandbox.readDebugLog()).split("\n").slice(-40);
    return [JSON.stringify(error), "--- debug log ---", ...log].join("\n");
  }

  /** Every Run since `from` went over HTTP/2, and nothing fell back to SSE. */
  async function allOverHttp2(from: number): Promise<void> {
    const runs = emulator.runs().slice(from);
    assert.ok(runs.length > 0, "a Run was recorded");
    assert.deepEqual(runs.map((run) => run.transport), runs.map(() => "http2"));
    assert.doesNotMatch(await sandbox.readDebugLog(), /transport fallback:/);
  }

  it("answers a text turn and a warm turn over HTTP/2", async () => {
    const from = emulator.runs().length;
    const session = await newSession(server.client);
    const first = await prompt(server.client, session, "::text over h2");
    assert.equal(first.error, undefined, await explain(first.error));
    assert.equal(first.text, "over h2");
    const second = await prompt(server.client, session, "::text warm over h2");
    assert.equal(second.error, undefined, await explain(second.error));
    assert.equal(second.text, "warm over h2");
    const [runA, runB] = emulator.runs().slice(-2);
    assert.equal(runA?.conversationId, runB?.conversationId);
    assert.equal(runB?.continuity, "warm");
    await allOverHttp2(from);
  });

  it("runs a tool step over HTTP/2", async () => {
    const from = emulator.runs().length;
    const session = await newSession(server.client);
    const answer = await prompt(server.client, session, "Run it.\n::shell echo h2-$((6*7))");
    assert.equal(answer.error, undefined, await explain(answer.error));
    const bash = (await sessionParts(server.client, session)).find((part): part is ToolPart =>
      part.type === "tool" && part.tool === "bash"
    );
    assert.equal(bash?.state.status, "completed");
    assert.match(answer.text, /h2-42/);
    await allOverHttp2(from);
  });

  it("keeps a turn stopped mid-stream in Cursor's context", async () => {
    const from = emulator.runs().length;
    const session = await newSession(server.client);
    await within(
      server.client.session.promptAsync({
        path: { id: session },
        body: {
          model: { providerID: "cursor", modelID: "composer-1" },
          parts: [{ type: "text", text: "Report\n::text First half.\n::sleep 20s\n::text Later." }],
        },
      }),
      15_000,
      "prompt_async",
    );
    await until(
      async () =>
        (await sessionParts(server.client, session)).some((part) =>
          part.type === "text" && part.text.includes("First half.")
        ),
      30_000,
      "the first half",
    );
    await within(server.client.session.abort({ path: { id: session } }), 15_000, "abort");
    await until(
      async () => {
        const status = await within(server.client.session.status(), 15_000, "status");
        const all = (status.data ?? {}) as Record<string, { type?: string }>;
        return all[session] === undefined || all[session]?.type === "idle";
      },
      30_000,
      "an idle session",
    );
    const next = await prompt(server.client, session, "::text After the stop.");
    assert.equal(next.error, undefined, await explain(next.error));
    assert.equal(next.text, "After the stop.");
    const context = (emulator.runs().at(-1)?.modelCalls.at(-1)?.context ?? []).join("\n");
    assert.match(context, /Report/);
    assert.match(context, /First half\./);
    assert.doesNotMatch(context, /^assistant: .*Later\./m);
    await allOverHttp2(from);
  });

  it("recovers from a GOAWAY in the middle of a turn, on a new HTTP/2 connection", async () => {
    const from = emulator.runs().length;
    const session = await newSession(server.client);
    const answer = await prompt(
      server.client,
      session,
      "::text Before.\n::fault goaway times=1\n::text After.",
    );
    assert.equal(answer.error, undefined, await explain(answer.error));
    assert.match(answer.text, /After\./);
    const runs = emulator.runs().slice(from);
    assert.ok(runs.length >= 2, `the GOAWAY ended a Run and another followed: ${runs.length}`);
    await allOverHttp2(from);
  });
});
