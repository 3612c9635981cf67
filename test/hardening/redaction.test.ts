import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { inspect } from "node:util";
import { generateText } from "ai";
import { createCursor } from "../../node.ts";
import { createFileDebugLogger } from "../../src/adapters/node/debug-log-file.ts";
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
});
