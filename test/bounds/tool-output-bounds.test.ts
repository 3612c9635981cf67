import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { execResultMessages } from "../../src/provider/direct/tools/exec-results.ts";
import {
  boundText,
  SHELL_OUTPUT_LIMIT,
  TEXT_RESULT_LIMIT,
  utf8Length,
} from "../../src/provider/direct/tools/output-bounds.ts";

const FIFTY_MB = 50 * 1024 * 1024;

describe("tool output bounds", () => {
  it("cuts a 50 MB shell result to Cursor's threshold with a marker stating the full size", () => {
    const output = `first line\n${"y".repeat(FIFTY_MB)}\nlast line\n`;
    const frames = execResultMessages(
      {
        kind: "shell",
        command: "cat big",
        cwd: "/ws",
        nonce: "n1",
        stream: true,
        background: false,
      },
      { text: `${output}\n__CURSOR_EXEC_EXIT_n1=0__\n`, isError: false, denied: false },
    );
    const stdout = frames.flatMap((f) =>
      f.case === "shellStream" && f.value.event?.case === "stdout"
        ? [f.value.event.value.data ?? ""]
        : []
    ).join("");
    assert.ok(utf8Length(stdout) <= SHELL_OUTPUT_LIMIT + 200, `${utf8Length(stdout)} bytes`);
    assert.ok(stdout.startsWith("first line\n") && stdout.endsWith("last line\n"));
    assert.match(stdout, new RegExp(`of ${utf8Length(output)} bytes omitted`));
    const exit = frames.at(-1);
    assert.ok(exit?.case === "shellStream" && exit.value.event?.case === "exit");
  });

  it("marks a cut read as truncated and reports the file's full size", () => {
    const content = "é".repeat(TEXT_RESULT_LIMIT);
    const [message] = execResultMessages({ kind: "read", path: "/ws/big.txt" }, {
      text: content,
      isError: false,
      denied: false,
    });
    assert.ok(message?.case === "readResult" && message.value.result?.case === "success");
    const success = message.value.result.value;
    assert.equal(success.truncated, true);
    assert.equal(success.fileSize, BigInt(TEXT_RESULT_LIMIT * 2));
    assert.ok(
      success.output?.case === "content" &&
        utf8Length(success.output.value ?? "") <= TEXT_RESULT_LIMIT + 200,
    );
  });

  it("leaves small results alone and never splits a surrogate pair", () => {
    assert.deepEqual(boundText("small", 100), { text: "small", truncated: false, totalBytes: 5 });
    const cut = boundText("😀".repeat(10_000), 1000);
    assert.ok(cut.truncated);
    assert.equal(cut.text.includes("\uFFFD"), false);
    assert.equal(new TextDecoder().decode(new TextEncoder().encode(cut.text)), cut.text);
    assert.equal(utf8Length("😀é a"), 4 + 2 + 2);
  });
});
