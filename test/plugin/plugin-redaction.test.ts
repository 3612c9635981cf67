import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createClassicPlugin } from "../../plugin/classic.ts";
import type { OpenCodeClientLike } from "../../plugin/host-types.ts";
import { memoryStore } from "./support/fake-opencode.ts";
import { recordingFetch } from "../hardening/support/recording-fetch.ts";

/** An opaque (non-JWT) stored access token: no pattern could recognise it. */
const OPAQUE = "storedOpaqueToken9d2c4b71";

describe("the classic plugin's log lines", () => {
  it("never show a stored opaque token that a failing server echoes", async () => {
    const server = recordingFetch(
      () => Promise.reject(new Error("no network in this test")),
      () =>
        Response.json(
          { code: "permission_denied", message: `token ${OPAQUE} is not allowed` },
          { status: 403, statusText: `Forbidden for ${OPAQUE}` },
        ),
    );
    const logs: string[] = [];
    const { logger, lines } = createMemoryLogger();
    const client: OpenCodeClientLike = {
      app: {
        log(request) {
          logs.push(request.body.message);
          return Promise.resolve({});
        },
      },
    };
    const stderr: string[] = [];
    const consoleError = console.error;
    const write = process.stderr.write;
    console.error = (...args: unknown[]) => void stderr.push(args.map(String).join(" "));
    process.stderr.write = ((chunk: string | Uint8Array) => {
      stderr.push(typeof chunk === "string" ? chunk : new TextDecoder().decode(chunk));
      return true;
    }) as typeof process.stderr.write;
    try {
      const hooks = await createClassicPlugin({
        env: { CURSOR_API_BASE_URL: "https://api2.cursor.sh" },
        store: memoryStore(),
        storeLocation: "/cache/opencode/cursor-models.json",
        fetch: server.fetch,
        now: Date.now,
        machineId: () => Promise.resolve("c".repeat(64)),
        readStoredAuth: () => Promise.resolve({ type: "api", key: OPAQUE }),
        openBrowser: () => false,
        logger,
        providerEntry: "file:///opt/ai-sdk-provider-cursor/node.js",
      })({ client }, undefined);
      await hooks.config?.({});
    } finally {
      console.error = consoleError;
      process.stderr.write = write;
    }
    assert.ok(
      server.requests.some((r) => r.headers.authorization === `Bearer ${OPAQUE}`),
      "the stored token was really sent",
    );
    const seen = [...logs, ...lines, ...stderr];
    assert.ok(seen.some((line) => /\[redacted\]/.test(line)), seen.join("\n"));
    for (const line of seen) assert.ok(!line.includes(OPAQUE), line);
  });
});
