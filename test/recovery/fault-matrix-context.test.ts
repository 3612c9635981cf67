/**
 * The recovery fault matrix, faults that cost context, on SSE and HTTP/2: the emulator
 * judges every model call against the model's window (the catalogue's, 1M in Max Mode) and
 * refuses a conversation that exceeds it the way Cursor does (`ERROR_CONVERSATION_TOO_LONG`,
 * or `ERROR_MAX_TOKENS` where the sources are silent on which), so the provider's 413 path
 * runs against the emulator's own judgement; and a first Run whose host history is larger
 * than the selected variant's window is refused before any Run, from the catalogue.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, type ModelMessage, streamText } from "ai";
import {
  type CatalogModel,
  type ContextOverflowError,
  defaultCatalog,
} from "../../src/testing/mod.ts";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";
import { opencodeVerdict } from "../support/opencode-retry-rule.ts";
import { assistant, quiet, user } from "./support.ts";

/** A model with an 8k window, and Max Mode offered. */
const SMALL: CatalogModel = {
  id: "small",
  displayName: "Small",
  thinking: false,
  thinkingStyle: 0,
  images: false,
  maxMode: true,
  nonMaxMode: true,
  contextTokens: 8_000,
  parameters: [],
  variants: [],
};

/** A host history OpenCode holds for a session this provider has not seen yet. */
const historyOf = (bytes: number, last: string): ModelMessage[] => [
  user("Summarise the build log"),
  assistant("b".repeat(bytes)),
  user(last),
];

async function firstTurn(
  cursor: ReturnType<typeof emulatorProvider>,
  model: string,
  messages: ModelMessage[],
  cursorOptions: Record<string, string | boolean> = {},
): Promise<{ text: string; error: unknown }> {
  let error: unknown;
  const result = streamText({
    model: cursor(model),
    messages,
    providerOptions: { cursor: { sessionId: "ses_window", ...cursorOptions } },
    ...quiet,
    onError: ({ error: e }) => {
      error = e;
    },
  });
  let text = "";
  try {
    for await (const delta of result.textStream) text += delta;
  } catch (e) {
    error = e;
  }
  return { text, error };
}

function assertOverflow(error: unknown): asserts error is APICallError {
  assert.ok(APICallError.isInstance(error), String(error));
  assert.equal(error.statusCode, 413, error.message);
  assert.equal(error.isRetryable, false);
  assert.equal(opencodeVerdict(error), "compact");
}

for (const transport of ["sse", "http2"] as const) {
  describe(`recovery fault matrix, faults that cost context (${transport})`, () => {
    for (const contextOverflow of ["conversation-too-long", "max-tokens"] as const) {
      it(`the emulator refuses a conversation over the window (${contextOverflow}): a 413`, async () => {
        await withEmulator({
          models: [...defaultCatalog(), SMALL],
          contextOverflow: contextOverflow satisfies ContextOverflowError,
        }, async (emulator) => {
          const cursor = emulatorProvider(emulator, transport);
          // About 15k tokens: over the 8k window, under the size the provider checks itself.
          const outcome = await firstTurn(cursor, "small", historyOf(60_000, "::text Done."));
          assertOverflow(outcome.error);
          const runs = emulator.runs();
          assert.equal(runs.length, 1, "Cursor's judgement, not the provider's");
          assert.match(runs[0]?.faults.join() ?? "", /context overflow \d+\/8000/);
          assert.equal(runs[0]?.error?.code, "invalid_argument");
        });
      });
    }

    it("a conversation that fits the window is answered", async () => {
      await withEmulator({ models: [...defaultCatalog(), SMALL] }, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const outcome = await firstTurn(cursor, "small", historyOf(8_000, "::text Done."));
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.equal(outcome.text, "Done.");
      });
    });

    it("Max Mode has a 1M window: the same conversation is answered", async () => {
      await withEmulator({ models: [...defaultCatalog(), SMALL] }, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        const outcome = await firstTurn(cursor, "small", historyOf(60_000, "::text Done."), {
          cursorMaxMode: true,
        });
        assert.equal(outcome.error, undefined, String(outcome.error));
        assert.equal(outcome.text, "Done.");
        assert.equal(emulator.runs()[0]?.maxMode, true);
      });
    });

    it("a first Run whose history exceeds the variant's window is refused before any Run", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator, transport);
        // About 600k tokens of host history for Auto's 200k window.
        const outcome = await firstTurn(cursor, "default", historyOf(2_400_000, "::text Done."));
        assertOverflow(outcome.error);
        assert.match(outcome.error.message, /too long to start a Cursor conversation/);
        assert.match(outcome.error.message, /context of 200000/);
        assert.equal(emulator.runs().length, 0, "nothing was uploaded");
      });
    });
  });
}
