/**
 * The recovery fault matrix, faults that cost time: a server that goes away gracefully
 * (GOAWAY, as in a deploy) before the Run's first frame is replayed at once, not after the
 * 30 s silence limit (on SSE the same fault is a dropped connection), and a renewal
 * endpoint that never answers costs one renewal deadline, not one per request shape.
 * (The held pass past a barrier and the frame that never completes have their own
 * matrix files.)
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { createTokenSource } from "../../src/auth/token-source.ts";
import { accessTokenGetter } from "../../plugin/auth/credentials.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { RetryError, streamText } from "ai";
import { assistant, complete, session, streamTurn, user } from "./support.ts";

const RENEWAL_PATHS = ["/oauth/token", "/auth/token", "/auth/exchange_user_api_key"];

/** A fetch that passes everything on, except renewals: those never get an answer. */
function unansweredRenewals(): { fetch: typeof fetch; renewals: string[] } {
  const renewals: string[] = [];
  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!RENEWAL_PATHS.includes(url.pathname)) return globalThis.fetch(input, init);
    renewals.push(url.pathname);
    return new Promise<Response>(() => {});
  };
  return { fetch, renewals };
}

/** The test's own bound on a turn (a harness limit, under the 30 s silence rule). */
const HARNESS_GUARD_MS = 15_000;

async function guarded<T>(work: Promise<T>, guardMs = HARNESS_GUARD_MS): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const guard = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the turn took over ${guardMs} ms`)), guardMs);
  });
  try {
    return await Promise.race([work, guard]);
  } finally {
    clearTimeout(timer);
  }
}

for (const transport of ["sse", "http2"] as const) {
  describe(`recovery fault matrix, faults that cost time (${transport})`, () => {
    it("a graceful GOAWAY before the first frame: replayed at once, answered once", async () => {
      const { logger, lines } = createMemoryLogger();
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport, { debug: logger });
        const prompt = "::fault goaway graceful times=1\n::text Alpha one. Beta two.";
        const outcome = await guarded(streamTurn(cursor, prompt, "ses_goaway"));
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.equal(outcome.text, "Alpha one. Beta two.");
        assert.equal(emulator.runs().length, 2, "the refused Run and one replay");
        assert.ok(lines.some((l) => l.startsWith("rebasing fresh Run: ")), lines.join("\n"));
        assert.ok(!lines.some((l) => /code=timeout/.test(l)), "not the silence limit");
        const next = await complete(cursor, [
          user(prompt),
          assistant(outcome.text),
          user("::text Next turn fine."),
        ], "ses_goaway");
        assert.equal(next, "Next turn fine.");
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it("a graceful GOAWAY before the first frame through the transport choice: replayed at once", async () => {
      await withEmulator({}, async (emulator) => {
        // The setting (not a transport object) goes through the HTTP/2-or-SSE choice; on the
        // emulator's cleartext origin only "http2" tries HTTP/2 ("auto" keeps h2c off).
        const cursor = emulatorProvider(emulator, transport, { transport: "http2" });
        const prompt = "::fault goaway graceful times=1\n::text Alpha one.";
        const outcome = await guarded(streamTurn(cursor, prompt, "ses_goaway_auto"));
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.equal(outcome.text, "Alpha one.");
        assert.equal(emulator.runs().length, 2, "the refused Run and one replay");
      });
    });

    it("a renewal endpoint that never answers: one renewal deadline, across the SDK's retries", async () => {
      await withEmulator({}, async (emulator) => {
        emulator.auth.setTokenLifetime(1000);
        const tokens = await emulator.auth.issueTokens();
        await new Promise((resolve) => setTimeout(resolve, 2100)); // the access token expired
        const { fetch, renewals } = unansweredRenewals();
        // The stored sign-in as the OpenCode plugin hands it over (plugin/auth/credentials.ts).
        const source = createTokenSource({
          accessToken: tokens.accessToken,
          refreshToken: tokens.refreshToken,
          apiBaseURL: emulator.url,
          allowLoopback: true,
          fetch,
          now: Date.now,
        });
        const cursor = emulatorProvider(emulator, transport, {
          apiKey: undefined,
          accessToken: accessTokenGetter(source),
          fetch,
        });
        // The AI SDK's own retries of the turn (two, 2 s and 4 s apart), as an app has them.
        let error: unknown;
        const result = streamText({
          model: cursor("gpt-5"),
          messages: [user("::text Alpha.")],
          ...session("ses_renew"),
          onError: ({ error: e }) => {
            error = e;
          },
        });
        await guarded(
          (async () => {
            for await (const _ of result.textStream) { /* nothing streams */ }
          })(),
          30_000,
        );
        assert.ok(RetryError.isInstance(error), String(error));
        assert.equal(error.errors.length, 3, "the first call and the SDK's two retries");
        assert.match(String(error.lastError), /renew the Cursor session right now/);
        assert.deepEqual(
          renewals,
          ["/oauth/token"],
          "one request, not one deadline per shape nor per retry",
        );
        assert.equal(emulator.runs().length, 0, "no Run with an expired token");
      });
    });
  });
}
