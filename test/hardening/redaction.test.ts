import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { inspect } from "node:util";
import { fromBinary } from "@bufbuild/protobuf";
import { generateText, streamText } from "ai";
import { AgentServerMessageSchema } from "../../src/gen/agent/v1/server_message_pb.ts";
import { EnvelopeDecoder } from "../../src/protocol/envelope.ts";
import { gunzip } from "../../src/transport/frame-stream.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { createCursor } from "../../node.ts";
import { createFileDebugLogger } from "../../src/adapters/node/files/debug-log-file.ts";
import { createCredentialRedactor } from "../../src/auth/credential-redactor.ts";
import { recordingFetch } from "./support/recording-fetch.ts";

const KEY = "crsr_RECOGNISABLE_fake_key_4242";
/** Opaque (non-JWT) tokens: no pattern could recognise them. */
const ACCESS = "opaqueAccessValue7c1f9e22";
const REFRESH = "opaqueRefreshValue5b3a8d41";
const SECRETS = [KEY, ACCESS, REFRESH];

/** Every text a person or a log could see of an error and its causes. */
function everyView(error: unknown): string[] {
  const views = [inspect(error, { depth: 20 }), JSON.stringify(error) ?? ""];
  for (let current: unknown = error, depth = 0; current && depth < 10; depth++) {
    const record = current as { message?: unknown; stack?: unknown; cause?: unknown };
    views.push(String(record.message), String(record.stack));
    try {
      views.push(JSON.stringify(current) ?? "");
    } catch {
      // circular: inspect above covers it
    }
    current = record.cause;
  }
  return views;
}

function assertNoSecret(texts: string[], where: string): void {
  for (const text of texts) {
    for (const secret of SECRETS) {
      assert.ok(!text.includes(secret), `${where} shows ${secret}: ${text.slice(0, 400)}`);
    }
  }
}

/** Runs `fn` while everything written to stderr is captured. */
async function capturingStderr<T>(fn: () => Promise<T>): Promise<{ value: T; stderr: string }> {
  const chunks: string[] = [];
  const write = process.stderr.write;
  const error = console.error;
  const warn = console.warn;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
    return true;
  }) as typeof process.stderr.write;
  console.error = (...args: unknown[]) => void chunks.push(args.map(String).join(" "));
  console.warn = console.error;
  try {
    return { value: await fn(), stderr: chunks.join("") };
  } finally {
    process.stderr.write = write;
    console.error = error;
    console.warn = warn;
  }
}

/** A hostile server: the exchange hands out opaque tokens, every RPC echoes them back. */
function echoingServer(status: number) {
  return recordingFetch(() => Promise.reject(new Error("no network in this test")), (request) => {
    if (request.path === "/auth/exchange_user_api_key") {
      return Response.json({ accessToken: ACCESS, refreshToken: REFRESH });
    }
    return Response.json({
      code: status === 401 ? "unauthenticated" : "permission_denied",
      message: `token ${ACCESS} (refresh ${REFRESH}, key ${KEY}) from ${
        request.headers.authorization ?? "nobody"
      } is not allowed`,
    }, { status });
  });
}

describe("credentials never show in errors, the debug log or stderr", () => {
  for (const status of [401, 403]) {
    it(`when the server echoes opaque tokens in an HTTP ${status}`, async () => {
      const dir = mkdtempSync(join(tmpdir(), "redaction-"));
      const log = join(dir, "debug.log");
      try {
        const server = echoingServer(status);
        const { value: error, stderr } = await capturingStderr(async () => {
          const cursor = createCursor({
            apiKey: KEY,
            apiBaseURL: "https://api2.cursor.sh",
            agentBaseURL: "https://agent.api5.cursor.sh",
            fetch: server.fetch,
            debug: createFileDebugLogger({
              env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: log },
            }),
            env: {},
          });
          return await generateText({ model: cursor("gpt-5"), prompt: "hi", maxRetries: 0 })
            .then(() => undefined, (reason: unknown) => reason);
        });
        assert.ok(error instanceof Error, "the call failed");
        assert.ok(
          server.requests.some((r) => r.headers.authorization === `Bearer ${ACCESS}`),
          "the opaque token was really sent",
        );
        assert.match(
          error.message,
          new RegExp(`HTTP ${status}`),
          "the message still says what failed",
        );
        assert.match(error.message, /\[redacted\]/);
        assertNoSecret(everyView(error), "the error");
        const text = readFileSync(log, "utf8");
        assert.match(text, /call failed: /, "the failure reached the debug log");
        assertNoSecret([text], "the debug log");
        assertNoSecret([stderr], "stderr");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe("credentials in an error that ends a stream after visible text", () => {
  it("are redacted in the error part, its causes and the debug log", async () => {
    await withEmulator({}, async (emulator) => {
      const dir = mkdtempSync(join(tmpdir(), "redaction-"));
      const log = join(dir, "debug.log");
      try {
        const cursor = emulatorProvider(emulator, "sse", {
          apiKey: KEY,
          fetch: opaqueTokenProxy(),
          debug: createFileDebugLogger({
            env: { CURSOR_PROVIDER_DEBUG: "1", CURSOR_PROVIDER_DEBUG_FILE: log },
          }),
        });
        const result = streamText({
          model: cursor("gpt-5"),
          prompt: "::text Visible before the failure",
          maxRetries: 0,
        });
        let text = "";
        let error: unknown;
        for await (const part of result.fullStream) {
          if (part.type === "text-delta") text += part.text;
          if (part.type === "error") error = part.error;
        }
        assert.ok(text !== "" && "Visible before the failure".startsWith(text), text);
        assert.ok(error instanceof Error, "the stream ended with an error part");
        assert.match(error.message, /\[redacted\]/);
        assertNoSecret(everyView(error), "the error part");
        assertNoSecret([readFileSync(log, "utf8")], "the debug log");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});

/**
 * Sits between the provider and the emulator: hands the provider opaque tokens (and
 * swaps them back for the emulator's JWTs on the way out), and after the first text
 * delta ends the Run with an error that echoes the opaque tokens and the key.
 */
function opaqueTokenProxy(): typeof fetch {
  let realAccess = "";
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (headers.get("authorization") === `Bearer ${ACCESS}`) {
      headers.set("authorization", `Bearer ${realAccess}`);
    }
    const response = await fetch(input, { ...init, headers });
    const url = String(input);
    if (url.endsWith("/auth/exchange_user_api_key")) {
      realAccess = ((await response.json()) as { accessToken: string }).accessToken;
      return Response.json({ accessToken: ACCESS, refreshToken: REFRESH });
    }
    if (!url.endsWith("/agent.v1.AgentService/RunSSE") || !response.body) return response;
    return new Response(response.body.pipeThrough(echoAfterFirstText()), {
      status: response.status,
      headers: response.headers,
    });
  };
}

function echoAfterFirstText(): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new EnvelopeDecoder();
  let done = false;
  return new TransformStream({
    async transform(chunk, controller) {
      if (done) return;
      for (const envelope of decoder.push(chunk)) {
        const header = new Uint8Array(5);
        header[0] = envelope.flags;
        new DataView(header.buffer).setUint32(1, envelope.data.length, false);
        controller.enqueue(new Uint8Array([...header, ...envelope.data]));
        if ((envelope.flags & 0x02) !== 0) continue;
        const payload = (envelope.flags & 0x01) !== 0
          ? await gunzip(envelope.data, 1 << 24)
          : envelope.data;
        const message = fromBinary(AgentServerMessageSchema, payload).message;
        if (message.case !== "interactionUpdate" || message.value.message.case !== "textDelta") {
          continue;
        }
        const end = new TextEncoder().encode(JSON.stringify({
          error: {
            code: "permission_denied",
            message: `token ${ACCESS} refresh ${REFRESH} key ${KEY} refused mid-run`,
          },
        }));
        const endHeader = new Uint8Array(5);
        endHeader[0] = 0x02;
        new DataView(endHeader.buffer).setUint32(1, end.length, false);
        controller.enqueue(new Uint8Array([...endHeader, ...end]));
        done = true;
        controller.terminate();
        return;
      }
    },
  });
}

describe("createCredentialRedactor", () => {
  it("redacts remembered values of any shape through nested causes, stacks and data", () => {
    const redactor = createCredentialRedactor();
    redactor.remember(ACCESS);
    redactor.remember("short");
    const inner = new Error(`inner ${ACCESS}`);
    const outer = Object.assign(new Error(`outer ${ACCESS}`, { cause: inner }), {
      data: { body: [`echo ${ACCESS}`], short: "short" },
    });
    redactor.redactError(outer);
    assertNoSecret(everyView(outer), "the chain");
    assert.equal(outer.message, "outer [redacted]");
    assert.equal(outer.data.short, "short", "values under 8 characters are not remembered");
    assert.equal(redactor.redact(`a ${KEY} b`), "a [redacted] b", "key patterns too");
  });

  it("keeps the latest 64 values, so years of renewals do not grow it", () => {
    const redactor = createCredentialRedactor();
    const values = Array.from(
      { length: 70 },
      (_, i) => `renewed-token-${String(i).padStart(3, "0")}`,
    );
    for (const value of values) redactor.remember(value);
    assert.equal(redactor.redact(values[0] ?? ""), values[0], "the oldest was forgotten");
    assert.equal(redactor.redact(values[69] ?? ""), "[redacted]");
    assert.equal(redactor.redact(values[6] ?? ""), "[redacted]", "the latest 64 are kept");
  });
});
