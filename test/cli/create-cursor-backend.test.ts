import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { generateText } from "ai";
import { createCursor, CursorError } from "../../node.ts";
import { installFakeCursorAgent } from "../../src/testing/adapters/fake-cursor-agent/install.ts";

describe('createCursor({ backend: "cli" })', () => {
  it("answers through the cursor-agent CLI found at the configured path", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cursor-backend-"));
    try {
      const fake = await installFakeCursorAgent(join(dir, "bin"));
      const cursor = createCursor({
        backend: "cli",
        cli: { binaryPath: fake.binaryPath, workspace: dir },
        env: { PATH: process.env.PATH, HOME: dir, FAKE_CURSOR_AGENT_STATE_DIR: join(dir, "state") },
      });
      const model = cursor("auto");
      assert.equal(model.specificationVersion, "v3");
      assert.equal(model.provider, "cursor.cli");
      const { text, finishReason } = await generateText({
        model,
        prompt: "Say hello",
        maxRetries: 0,
      });
      assert.ok(text.length > 0, "the CLI's answer reached the caller");
      assert.equal(finishReason, "stop");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses the CLI backend on the web entry with a clear error", async () => {
    const { createCursor: createWebCursor } = await import("../../mod.ts");
    assert.throws(() => createWebCursor({ backend: "cli" }), /needs the Node entry/);
  });

  it("names the two backends when given an unknown one (the old names included)", () => {
    for (const backend of ["agent", "cursor-agent"]) {
      assert.throws(
        () => createCursor({ backend: backend as "cli", env: {} }),
        (error: unknown) =>
          error instanceof CursorError && error.code === "config" &&
          error.message === `Unknown backend "${backend}": use "direct" or "cli"`,
      );
    }
    assert.equal(createCursor({ env: {}, accessToken: "t" })("auto").provider, "cursor.direct");
  });
});
