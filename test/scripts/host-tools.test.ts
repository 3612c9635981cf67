import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { globPattern, insideWorkspace } from "../../scripts/start/host-tools.ts";

describe("npm start --tools workspace", () => {
  it("keeps tool paths inside the workspace", () => {
    assert.equal(insideWorkspace("/ws", "notes.txt"), "/ws/notes.txt");
    assert.equal(insideWorkspace("/ws", "/ws/src/a.ts"), "/ws/src/a.ts");
    assert.equal(insideWorkspace("/ws", undefined), "/ws");
    assert.throws(() => insideWorkspace("/ws", "../etc/passwd"), /outside the workspace/);
    assert.throws(() => insideWorkspace("/ws", "/etc/passwd"), /outside the workspace/);
  });

  it("matches globs the way the glob tool's callers expect", () => {
    assert.ok(globPattern("**/*.ts").test("src/hello.ts"));
    assert.ok(globPattern("**/*.ts").test("hello.ts"));
    assert.ok(globPattern("*.txt").test("notes.txt"));
    assert.ok(globPattern("*.txt").test("deep/notes.txt"), "a bare pattern matches at any depth");
    assert.ok(!globPattern("src/*.ts").test("src/a/b.ts"));
    assert.ok(!globPattern("*.md").test("README.mdx"));
  });
});
