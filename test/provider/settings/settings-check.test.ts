import { describe, it } from "node:test";
import assert from "node:assert/strict";
import net from "node:net";
import { APICallError, generateText } from "ai";
import { createCursor } from "../../../mod.ts";
import { CursorError } from "../../../src/core/cursor-error.ts";

function configError(make: () => unknown, pattern: RegExp): void {
  assert.throws(make, (error: unknown) => {
    assert.ok(error instanceof CursorError, String(error));
    assert.equal(error.code, "config");
    assert.match(error.message, pattern);
    return true;
  });
}

describe("createCursor checks its settings at once", () => {
  it("refuses a Cursor URL without a scheme, saying what to write", () => {
    configError(
      () => createCursor({ accessToken: "t", apiBaseURL: "api2.cursor.sh" }),
      /^Invalid apiBaseURL "api2\.cursor\.sh": give the scheme, e\.g\. "https:\/\/api2\.cursor\.sh"$/,
    );
    configError(
      () => createCursor({ accessToken: "t", agentBaseURL: "agent.cursor.sh" }),
      /^Invalid agentBaseURL "agent\.cursor\.sh"/,
    );
    configError(
      () => createCursor({ accessToken: "t", env: { CURSOR_API_BASE_URL: "127.0.0.1:4000" } }),
      /^Invalid CURSOR_API_BASE_URL "127\.0\.0\.1:4000": give the scheme, e\.g\. "https:\/\/127\.0\.0\.1:4000"/,
    );
    configError(
      () => createCursor({ accessToken: "t", backend: "cli", apiBaseURL: "api2.cursor.sh" }),
      /Invalid apiBaseURL/,
    );
  });

  it("refuses timeouts that are not positive finite numbers, naming the timeout", () => {
    for (const value of [-1, 0, Number.NaN, Number.POSITIVE_INFINITY, "5000"]) {
      configError(
        () => createCursor({ accessToken: "t", timeouts: { unaryMs: value as number } }),
        /^Invalid timeouts\.unaryMs .*: must be a positive finite number of milliseconds$/,
      );
    }
    configError(
      () => createCursor({ accessToken: "t", timeouts: { readIdleMs: -5 } }),
      /^Invalid timeouts\.readIdleMs -5/,
    );
    configError(
      () => createCursor({ accessToken: "t", timeouts: { unary: 100 } as never }),
      /^Unknown timeout "unary": use unaryMs, readIdleMs, appendMs$/,
    );
  });

  it("accepts what worked before", () => {
    createCursor({ accessToken: "t" });
    createCursor({
      accessToken: "t",
      apiBaseURL: "https://api2.cursor.sh",
      agentBaseURL: "https://agent.cursor.sh",
      timeouts: { unaryMs: 2_000, readIdleMs: 60_000, appendMs: 10_000 },
    });
  });
});

/** A call's error message when Cursor's API origin is `origin`. */
async function callFailure(apiBaseURL: string): Promise<string> {
  const cursor = createCursor({
    accessToken: "t",
    apiBaseURL,
    allowLoopback: true,
    machineId: "a".repeat(64),
    env: { CURSOR_ENDLESS_RETRIES: undefined },
  });
  try {
    await generateText({ model: cursor("composer-2"), prompt: "Hi", maxRetries: 0 });
  } catch (error) {
    assert.ok(APICallError.isInstance(error), String(error));
    assert.equal((error.data as { code?: string }).code, "network");
    return error.message;
  }
  assert.fail("the call succeeded");
}

async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("network failures name the host and the cause", () => {
  it("a name that does not resolve is a DNS failure", async () => {
    assert.match(
      await callFailure("https://cursor-host.invalid"),
      /GetServerConfig to cursor-host\.invalid failed \(DNS lookup failed\)/,
    );
  });

  it("a closed port is a refused connection", async () => {
    const port = await closedPort();
    assert.match(
      await callFailure(`http://127.0.0.1:${port}`),
      new RegExp(`GetServerConfig to 127\\.0\\.0\\.1:${port} failed \\(connection refused\\)`),
    );
  });

  it("https to a server that does not speak TLS is a TLS failure", async () => {
    const server = net.createServer((socket) => {
      socket.on("error", () => {});
      socket.once("data", () => socket.end("HTTP/1.1 400 Bad Request\r\n\r\n"));
    }).listen(0, "127.0.0.1");
    await new Promise((resolve) => server.once("listening", resolve));
    const port = (server.address() as net.AddressInfo).port;
    try {
      assert.match(
        await callFailure(`https://127.0.0.1:${port}`),
        new RegExp(`GetServerConfig to 127\\.0\\.0\\.1:${port} failed \\(TLS handshake failed\\)`),
      );
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
