import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, generateText } from "ai";
import { createCursor, type CursorProviderOptions } from "../../../mod.ts";
import { CursorError } from "../../../src/core/cursor-error.ts";
import {
  CURSOR_OPTION_KEYS,
  parseCursorOptions,
} from "../../../src/provider/settings/cursor-options.ts";
import { createScriptedTransport, replyWithText } from "../../support/scripted-transport.ts";

const base = {
  accessToken: "test-token",
  agentBaseURL: "https://agent.cursor.sh",
  machineId: "a".repeat(64),
} as const;

function rejection(cursor: Record<string, unknown>): string {
  try {
    parseCursorOptions({ cursor } as never, "cursor");
  } catch (error) {
    assert.ok(error instanceof CursorError);
    assert.equal(error.code, "invalid_argument");
    return error.message;
  }
  assert.fail(`accepted ${JSON.stringify(cursor)}`);
}

describe("providerOptions.cursor is read strictly", () => {
  it("names the nearest valid key for a typo", () => {
    assert.equal(
      rejection({ sesionId: "chat-1" }),
      'Invalid providerOptions.cursor: unknown key "sesionId", did you mean "sessionId"?',
    );
    assert.match(rejection({ cursormodelid: "gpt-5" }), /did you mean "cursorModelId"/);
  });

  it("lists the valid keys when nothing is close", () => {
    assert.match(
      rejection({ temperatureBoost: 2 }),
      /unknown key "temperatureBoost", valid keys: sessionId, cursorModelId, /,
    );
  });

  it("rejects wrong types and empty values, naming the key", () => {
    assert.match(rejection({ sessionId: "" }), /sessionId must be a non-empty string, got ""/);
    assert.match(rejection({ sessionId: "  " }), /sessionId must be a non-empty string/);
    assert.match(rejection({ sessionId: 42 }), /sessionId must be a non-empty string, got 42/);
    assert.match(rejection({ cursorMaxMode: "yes" }), /cursorMaxMode must be a boolean, got "yes"/);
    assert.match(rejection({ cursorModelId: "" }), /cursorModelId must be a non-empty string/);
    assert.match(rejection({ usage: "tokens" }), /usage must be "occupancy" or "request"/);
    assert.match(
      rejection({ cursorVariantParameters: { id: "x" } }),
      /cursorVariantParameters must be an array of \{id, value\}, got an object/,
    );
    assert.match(rejection({ sessionRules: "deny" }), /sessionRules/);
  });

  it("rejects a value that is not an object", () => {
    for (const value of ["chat-1", 3, null, ["sessionId"]]) {
      assert.throws(
        () => parseCursorOptions({ cursor: value } as never, "cursor"),
        (error: unknown) =>
          error instanceof CursorError && /Invalid providerOptions.cursor: expected an object/
            .test(error.message),
      );
    }
  });

  it("accepts every key of the table and reads the provider's registered name first", () => {
    const options = {
      sessionId: "chat-1",
      cursorModelId: "gpt-5",
      cursorVariantParameters: [{ id: "thinking", value: "true" }],
      cursorMaxMode: false,
      usage: "request",
      sessionRules: { status: "readable", rules: [] },
      workspace: "/work/app",
    } satisfies CursorProviderOptions;
    assert.deepEqual([...CURSOR_OPTION_KEYS].sort(), Object.keys(options).sort());
    const parsed = parseCursorOptions(
      { mycursor: options, cursor: { sessionId: "x" } },
      "mycursor",
    );
    assert.deepEqual(parsed.options, options);
    assert.deepEqual(parsed.warnings, []);
  });

  it("ignores the keys hosts put under every provider's options, with a warning", () => {
    const parsed = parseCursorOptions({ cursor: { reasoningEffort: "medium" } }, "cursor");
    assert.deepEqual(parsed.options, {});
    assert.equal(parsed.warnings[0]?.type, "unsupported");
    assert.match(JSON.stringify(parsed.warnings), /providerOptions.cursor.reasoningEffort/);
  });

  it("fails a generateText call with a typo before any Run, on both backends' skeleton", async () => {
    const transport = createScriptedTransport((server) => replyWithText(server, ["ok"]));
    const cursor = createCursor({ ...base, transport });
    await assert.rejects(
      generateText({
        model: cursor("composer-2"),
        prompt: "Hi",
        maxRetries: 0,
        providerOptions: { cursor: { sesionId: "chat-1" } },
      }),
      (error: unknown) =>
        APICallError.isInstance(error) && /did you mean "sessionId"/.test(error.message) &&
        (error.data as { code?: string }).code === "invalid_argument",
    );
    assert.equal(transport.runs.length, 0);
  });
});
