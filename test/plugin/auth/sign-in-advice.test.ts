/**
 * Errors for missing credentials say how to sign in where the provider runs: the web
 * entry names the environment it read (Deno.env, process.env) or, without one, the
 * settings to pass; the Node entry names CURSOR_API_KEY; only the OpenCode plugin's
 * providers mention OpenCode.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError, generateText } from "ai";
import { createCursor as createWeb } from "../../../mod.ts";
import { createCursor as createNode } from "../../../node.ts";
import { createCursor as createWebV4 } from "../../../v4.ts";
import { runtimeEnvironment, webSignInAdvice } from "../../../src/adapters/web/runtime-env.ts";
import { OPENCODE_SIGN_IN_ADVICE } from "../../../plugin/auth/sign-in-advice.ts";

const agent = { agentBaseURL: "https://agent.cursor.sh", machineId: "a".repeat(64) } as const;

async function failure(model: Parameters<typeof generateText>[0]["model"]): Promise<string> {
  const error = await generateText({ model, prompt: "Hi", maxRetries: 0 }).then(
    () => undefined,
    (reason: unknown) => reason,
  );
  assert.ok(APICallError.isInstance(error), String(error));
  assert.equal((error.data as { code?: string }).code, "unauthenticated");
  return error.message;
}

describe("sign-in advice for the host", () => {
  it("the web entry names the environment it read, never OpenCode", async () => {
    const saved = process.env.CURSOR_API_KEY;
    delete process.env.CURSOR_API_KEY;
    try {
      const message = await failure(createWeb(agent)("composer-2"));
      assert.match(message, /^No Cursor credentials: set apiKey \(crsr_…\) or accessToken\. /);
      assert.match(message, /set CURSOR_API_KEY .*read from (Deno|process)\.env\)/);
      assert.doesNotMatch(message, /opencode/i);
    } finally {
      if (saved !== undefined) process.env.CURSOR_API_KEY = saved;
    }
  });

  it("the web entry says which setting to pass where the runtime has no environment", () => {
    assert.equal(runtimeEnvironment({}), undefined);
    assert.match(webSignInAdvice(undefined), /no environment .* pass apiKey .* or accessToken/);
    const deno = {
      Deno: {
        env: { get: (name: string) => (name === "CURSOR_API_KEY" ? "crsr_deno" : undefined) },
        permissions: {
          querySync: ({ variable }: { variable: string }) => ({
            state: variable === "CURSOR_API_KEY" ? "granted" : "prompt",
          }),
        },
      },
    };
    assert.deepEqual(runtimeEnvironment(deno), {
      env: { CURSOR_API_KEY: "crsr_deno" },
      source: "Deno.env",
    });
  });

  it("the web entry reads CURSOR_API_KEY from the runtime's environment", () => {
    const found = runtimeEnvironment({
      process: { env: { CURSOR_API_KEY: "crsr_worker", HOME: "/" } },
    });
    assert.deepEqual(found, { env: { CURSOR_API_KEY: "crsr_worker" }, source: "process.env" });
    assert.equal(createWebV4({ ...agent, env: {} })("composer-2").specificationVersion, "v4");
  });

  it("the Node entry names CURSOR_API_KEY, never OpenCode", async () => {
    const message = await failure(createNode({ ...agent, env: {} })("composer-2"));
    assert.match(message, /Sign in to Cursor again: set CURSOR_API_KEY/);
    assert.doesNotMatch(message, /opencode/i);
  });

  it("the plugin's advice reaches the provider's errors", async () => {
    const cursor = createNode({ ...agent, env: {}, signInAdvice: OPENCODE_SIGN_IN_ADVICE });
    assert.match(
      await failure(cursor("composer-2")),
      /run `opencode auth login` and choose Cursor/,
    );
  });
});
