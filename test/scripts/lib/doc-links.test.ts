import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { anchorsOf, brokenLinks, headingAnchor } from "../../../scripts/lib/doc-links.ts";

const files: Record<string, string> = {
  "docs/emulator.md":
    "# The Cursor emulator\n\n## Directives\n\n```md\n# not a heading\n```\n\n## Faults\n## Faults\n",
  "docs/opencode.md": "# OpenCode\n",
};
const read = (path: string) => Promise.resolve(files[path]);

describe("the documentation link check", () => {
  it("makes GitHub's anchors, numbering repeated headings and skipping code fences", () => {
    assert.equal(
      headingAnchor("OpenCode against the `emulator`, step by step!"),
      "opencode-against-the-emulator-step-by-step",
    );
    assert.deepEqual(
      [...anchorsOf(files["docs/emulator.md"] ?? "")],
      ["the-cursor-emulator", "directives", "faults", "faults-1"],
    );
  });

  it("reports a missing heading and a missing file, and accepts good and external links", async () => {
    const readme = [
      "[table](docs/emulator.md#the-directive-language)",
      "[table](docs/emulator.md#directives) [faults](docs/emulator.md#faults-1)",
      "[gone](docs/missing.md) [site](https://ai-sdk.dev) [self](#top)",
      "`[not a link](nowhere.md)`",
      "# Top",
    ].join("\n");
    const broken = await brokenLinks("README.md", readme, read);
    assert.deepEqual(broken.map((link) => [link.line, link.target, link.reason]), [
      [
        1,
        "docs/emulator.md#the-directive-language",
        "docs/emulator.md has no heading for #the-directive-language",
      ],
      [3, "docs/missing.md", "docs/missing.md does not exist"],
    ]);
  });

  it("resolves links relative to the file they are in", async () => {
    assert.deepEqual(
      await brokenLinks("docs/opencode.md", "[e](emulator.md#directives)", read),
      [],
    );
  });
});
