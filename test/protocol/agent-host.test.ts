import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { validateAgentOrigin } from "../../src/protocol/agent-host.ts";
import { CursorError } from "../../src/core/cursor-error.ts";

describe("agent origin validation", () => {
  it("accepts cursor.sh hosts and keeps only the origin", () => {
    assert.equal(
      validateAgentOrigin(" https://agentn.us.api5.cursor.sh/path?q=1 "),
      "https://agentn.us.api5.cursor.sh",
    );
    assert.equal(validateAgentOrigin("agent.cursor.sh"), "https://agent.cursor.sh");
  });

  for (
    const bad of [
      "http://agentn.api5.cursor.sh",
      "https://cursor.sh",
      "https://cursor.sh.evil.com",
      "https://user:pw@agent.cursor.sh",
      "https://example.com",
      "::::",
    ]
  ) {
    it(`rejects ${bad}`, () => {
      assert.throws(
        () => validateAgentOrigin(bad),
        (error: unknown) => error instanceof CursorError && error.code === "config",
      );
    });
  }

  it("accepts loopback only with the explicit opt-in", () => {
    assert.throws(() => validateAgentOrigin("http://127.0.0.1:8080"), /https is required/);
    assert.throws(() => validateAgentOrigin("https://localhost:8080"), /set allowLoopback/);
    assert.equal(
      validateAgentOrigin("http://127.0.0.1:8080/x", { allowLoopback: true }),
      "http://127.0.0.1:8080",
    );
    assert.equal(validateAgentOrigin("http://[::1]:9", { allowLoopback: true }), "http://[::1]:9");
  });
});
