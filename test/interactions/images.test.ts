import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, streamText } from "ai";
import { emulatorProvider, withEmulator } from "../support/emulator.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

async function imageTurn(modelId: string) {
  return await withEmulator({}, async (emulator) => {
    const cursor = emulatorProvider(emulator);
    let failure: unknown;
    const result = streamText({
      model: cursor(modelId),
      messages: [{
        role: "user",
        content: [
          { type: "text", text: "What is in this picture?" },
          { type: "image", image: PNG, mediaType: "image/png" },
        ],
      }],
      maxRetries: 0,
      onError: ({ error }) => {
        failure = error;
      },
    });
    const text = await Promise.resolve(result.text).catch(() => "");
    return { text, failure, runs: emulator.runs().length };
  });
}

describe("image input follows the catalogue", () => {
  it("refuses an image to a text-only model with a clear error before any Run", async () => {
    const outcome = await imageTurn("composer-1");
    assert.equal(outcome.runs, 0, "no Run was started");
    const message = outcome.failure instanceof Error
      ? outcome.failure.message
      : String(outcome.failure);
    assert.match(message, /Model "composer-1" does not accept images/);
    assert.ok(!APICallError.isInstance(outcome.failure) || !outcome.failure.isRetryable);
  });

  it("sends the image to an image-capable model", async () => {
    const outcome = await imageTurn("gpt-5");
    assert.equal(outcome.failure, undefined);
    assert.equal(outcome.runs, 1);
  });
});
