import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { pluginHarness } from "./support/fake-opencode.ts";

/** The provider options `chat.params` gives a call of a plugin instance for `directory`. */
async function optionsFor(directory: string | undefined): Promise<Record<string, unknown>> {
  const harness = await pluginHarness({
    storedAuth: { type: "api", key: "crsr_workspace_key" },
    ...(directory === undefined ? {} : { directory }),
  });
  try {
    await harness.hooks.config?.({});
    const output = { options: {} as Record<string, unknown> };
    await harness.hooks["chat.params"]?.({
      model: { id: "gpt-5", providerID: "cursor" },
      message: {},
      sessionID: "ses_ws",
      agent: "build",
    }, output);
    return output.options;
  } finally {
    await harness.emulator.close();
  }
}

describe("classic plugin: the session's project", () => {
  it("hands each instance's directory to the provider with every call", async () => {
    const [alpha, beta] = await Promise.all([optionsFor("/work/alpha"), optionsFor("/work/beta")]);
    assert.equal(alpha.workspace, "/work/alpha");
    assert.equal(beta.workspace, "/work/beta");
  });

  it("names no workspace when the host gives no absolute directory", async () => {
    assert.equal((await optionsFor(undefined)).workspace, undefined);
    assert.equal((await optionsFor("relative/dir")).workspace, undefined);
  });
});
