import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

describe("npm pack at the repository root", () => {
  it("refuses to pack the sources and names the command that packs the built package", () => {
    const run = spawnSync("npm", ["pack", "--dry-run", "--ignore-scripts=false"], {
      cwd: process.cwd(),
      encoding: "utf8",
      timeout: 60_000,
    });
    assert.notEqual(run.status, 0, "npm pack succeeded at the root");
    assert.match(
      run.stderr,
      /The package is built in npm\/.*run npm run build, then npm pack \.\/npm/,
    );
    assert.doesNotMatch(run.stdout, /\.tgz/);
  });
});
