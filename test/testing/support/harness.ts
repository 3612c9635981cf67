/**
 * Test harness: starts an emulator with short timers and a valid token, and the client
 * target for a transport.
 *
 * @module
 */
import {
  startCursorEmulator,
  type StartEmulatorOptions,
} from "../../../src/testing/adapters/serve.ts";
import type { CursorEmulator } from "../../../src/testing/adapters/serve.ts";
import type { ClientTarget } from "./minimal-client.ts";

/** A started emulator and a token for it. */
export interface Harness {
  readonly emulator: CursorEmulator;
  readonly token: string;
  target(transport: "sse" | "http2"): ClientTarget;
}

/** Starts an emulator for a test (close it in `after`/`finally`). */
export async function startHarness(options: StartEmulatorOptions = {}): Promise<Harness> {
  const emulator = await startCursorEmulator({
    replyDeadlineMs: 3000,
    heartbeatIntervalMs: 1000,
    clientHeartbeatTimeoutMs: 15_000,
    appendGapTimeoutMs: 500,
    ...options,
  });
  const { accessToken } = await emulator.auth.issueTokens();
  return {
    emulator,
    token: accessToken,
    target: (transport) => ({
      transport,
      url: emulator.url,
      token: accessToken,
      ...(emulator.http2Url === undefined ? {} : { http2Url: emulator.http2Url }),
    }),
  };
}

/** Both transports, for parameterised tests. */
export const TRANSPORTS = ["sse", "http2"] as const;
