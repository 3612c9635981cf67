import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { type PluginHarness, pluginHarness } from "./support/fake-opencode.ts";

type Lookup = (id: string) => Promise<{ data?: unknown; error?: unknown }>;

async function chatParams(
  lookup: Lookup | undefined,
  input: { sessionID?: string; agent?: string } = {},
): Promise<Record<string, unknown>> {
  const harness: PluginHarness = await pluginHarness({
    storedAuth: { type: "api", key: "crsr_rules_key" },
    ...(lookup === undefined ? {} : { sessions: lookup }),
  });
  try {
    await harness.hooks.config?.({});
    const output = { options: {} as Record<string, unknown> };
    await harness.hooks["chat.params"]?.({
      model: { id: "gpt-5", providerID: "cursor" },
      message: {},
      sessionID: "ses_rules",
      agent: "build",
      ...input,
    }, output);
    return output.options;
  } finally {
    await harness.emulator.close();
  }
}

const DENY = { permission: "edit", pattern: "*", action: "deny" };

describe("classic plugin: the session's permission rules", () => {
  it("hands the session's rules to the provider, in order", async () => {
    const asked: string[] = [];
    const options = await chatParams((id) => {
      asked.push(id);
      return Promise.resolve({ data: { id, permission: [DENY] } });
    });
    assert.deepEqual(options.sessionRules, { status: "readable", rules: [DENY] });
    assert.deepEqual(asked, ["ses_rules"]);
  });

  it("reads a session without rules as an empty list", async () => {
    const options = await chatParams((id) => Promise.resolve({ data: { id } }));
    assert.deepEqual(options.sessionRules, { status: "readable", rules: [] });
  });

  it("retries a failed lookup once", async () => {
    let calls = 0;
    const options = await chatParams((id) => {
      calls++;
      return calls === 1
        ? Promise.reject(new Error("socket hang up"))
        : Promise.resolve({ data: { id, permission: [DENY] } });
    });
    assert.equal(calls, 2);
    assert.deepEqual(options.sessionRules, { status: "readable", rules: [DENY] });
  });

  it("reports rules that stay unreadable, never an empty list, and lets the call go on", async () => {
    let calls = 0;
    const options = await chatParams(() => {
      calls++;
      return Promise.resolve({
        error: { name: "NotFoundError", data: { message: "Session gone" } },
      });
    });
    assert.equal(calls, 2, "one retry, no more");
    assert.deepEqual(options.sessionRules, { status: "unreadable", reason: "Session gone" });
    const malformed = await chatParams((id) =>
      Promise.resolve({ data: { id, permission: [{ permission: "edit" }] } })
    );
    assert.equal((malformed.sessionRules as { status: string }).status, "unreadable");
    const noClient = await chatParams(undefined);
    assert.equal((noClient.sessionRules as { status: string }).status, "unreadable");
  });

  it("reads no rules for compaction, title and summary calls", async () => {
    let calls = 0;
    const lookup: Lookup = (id) => {
      calls++;
      return Promise.resolve({ data: { id } });
    };
    for (const agent of ["compaction", "title", "summary"]) {
      const options = await chatParams(lookup, { agent });
      assert.equal(options.sessionRules, undefined, agent);
    }
    assert.equal(calls, 0);
  });
});
