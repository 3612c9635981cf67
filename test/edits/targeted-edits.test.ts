import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  parseProbe,
  probeCommand,
  type RawFile,
} from "../../src/provider/direct/tools/files/raw-file.ts";
import { editStrings, planChange } from "../../src/provider/direct/tools/files/targeted-edit.ts";
import { patchForPlan, patchForWrite } from "../../src/provider/direct/tools/files/apply-patch.ts";
import { bridgeWriteExec } from "../../src/provider/direct/tools/files/write-bridge.ts";
import { classifyHostTools } from "../../src/provider/direct/tools/host-tools.ts";

const enc = new TextEncoder();
const dec = new TextDecoder("utf-8", { ignoreBOM: true });
const BOM = "\uFEFF";

/** The three files of the issue, and the one-line change a model asks for. */
const FILES: Record<string, string> = {
  crlf: "line one\r\nline two\r\nline three\r\nline four\r\n",
  bom: `${BOM}line one\r\nline two\r\nline three\r\nline four\r\n`,
  mixed: "line one\r\nline two\nline three\r\nline four\n",
};
/** What the model saw (display text: no `\r`, no BOM) with line two changed. */
const REQUESTED = "line one\nline TWO\nline three\nline four\n";
const EXPECTED: Record<string, string> = {
  crlf: "line one\r\nline TWO\r\nline three\r\nline four\r\n",
  bom: `${BOM}line one\r\nline TWO\r\nline three\r\nline four\r\n`,
  mixed: "line one\r\nline TWO\nline three\r\nline four\n",
};

function rawOf(bytes: string): RawFile {
  return bytes.startsWith(BOM) ? { bom: true, text: bytes.slice(1) } : { bom: false, text: bytes };
}

/** OpenCode 1.18.33's apply_patch update, as its code does it: lines split on `\n`, exact match first. */
function applyPatchLikeOpenCode(file: string, patch: string): string {
  const bom = file.startsWith(BOM);
  const lines = (bom ? file.slice(1) : file).split("\n");
  if (lines.at(-1) === "") lines.pop();
  const body = patch.split("\n").slice(3, -1).filter((l) => l !== "*** End of File");
  const oldLines = body.filter((l) => !l.startsWith("+")).map((l) => l.slice(1));
  const newLines = body.filter((l) => !l.startsWith("-")).map((l) => l.slice(1));
  const at = lines.findIndex((_, i) => oldLines.every((o, k) => lines[i + k] === o));
  assert.notEqual(at, -1, "the hunk's lines match the file exactly");
  lines.splice(at, oldLines.length, ...newLines);
  if (lines.at(-1) !== "") lines.push("");
  return (bom ? BOM : "") + lines.join("\n");
}

/** OpenCode 1.18.33's edit, exact match: strings normalised to LF, then to the file's ending. */
function editLikeOpenCode(file: string, oldString: string, newString: string): string {
  const bom = file.startsWith(BOM);
  const text = bom ? file.slice(1) : file;
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const convert = (s: string) => s.replaceAll("\r\n", "\n").replaceAll("\n", eol);
  const from = convert(oldString);
  assert.equal(text.indexOf(from), text.lastIndexOf(from), "oldString is unique");
  assert.notEqual(text.indexOf(from), -1, "oldString matches the file exactly");
  return (bom ? BOM : "") + text.replace(from, convert(newString));
}

describe("targeted edits keep each file's bytes", () => {
  for (const [name, bytes] of Object.entries(FILES)) {
    it(`apply_patch: ${name} file, one changed line`, () => {
      const patch = patchForPlan("notes.txt", planChange(rawOf(bytes), REQUESTED));
      assert.equal(applyPatchLikeOpenCode(bytes, patch), EXPECTED[name]);
    });

    it(`edit: ${name} file, one changed line`, () => {
      const strings = editStrings(planChange(rawOf(bytes), REQUESTED));
      assert.ok(strings !== undefined);
      assert.equal(editLikeOpenCode(bytes, strings.oldString, strings.newString), EXPECTED[name]);
    });
  }

  it("keeps the endings of inserted and deleted lines in a CRLF file", () => {
    const file = "a\r\nb\r\nc\r\n";
    const inserted = planChange(rawOf(file), "a\nb\nnew\nc\n");
    assert.equal(inserted.text, "a\r\nb\r\nnew\r\nc\r\n");
    const strings = editStrings(inserted);
    assert.ok(strings);
    assert.equal(editLikeOpenCode(file, strings.oldString, strings.newString), inserted.text);
    const deleted = planChange(rawOf(file), "a\nc\n");
    assert.equal(applyPatchLikeOpenCode(file, patchForPlan("f", deleted)), "a\r\nc\r\n");
  });

  it("widens oldString until it is unique in the file", () => {
    const file = "x\r\nsame\r\ny\r\nsame\r\n";
    const strings = editStrings(planChange(rawOf(file), "x\nsame\ny\nSAME\n"));
    assert.ok(strings);
    assert.equal(
      editLikeOpenCode(file, strings.oldString, strings.newString),
      "x\r\nsame\r\ny\r\nSAME\r\n",
    );
  });

  it("takes text that carries its own carriage returns as written", () => {
    const plan = planChange(rawOf("a\nb\n"), "a\r\nb\r\n");
    assert.equal(plan.text, "a\r\nb\r\n");
    assert.ok(plan.wholeFile);
  });

  it("adds a new file with the requested text", () => {
    assert.equal(
      patchForWrite("n.txt", "x\r\ny\n", undefined),
      "*** Begin Patch\n*** Add File: n.txt\n+x\r\n+y\n*** End Patch",
    );
  });
});

describe("file probe through a shell", () => {
  const dir = mkdtempSync(join(tmpdir(), "edits-probe-"));
  const sh = (command: string) => spawnSync("sh", ["-c", command], { encoding: "utf8" }).stdout;

  for (const [name, bytes] of Object.entries(FILES)) {
    it(`reads the real bytes of a ${name} file`, () => {
      const path = join(dir, `${name} 'q'.txt`);
      writeFileSync(path, enc.encode(bytes));
      const file = parseProbe(sh(probeCommand(path, "p1")), "p1");
      assert.deepEqual(file, rawOf(dec.decode(readFileSync(path))));
    });
  }

  it("says a missing file is absent and distrusts cut or failed output", () => {
    assert.equal(parseProbe(sh(probeCommand(join(dir, "missing.txt"), "p2")), "p2"), null);
    const path = join(dir, "big.txt");
    writeFileSync(path, "x".repeat(300 * 1024));
    assert.equal(parseProbe(sh(probeCommand(path, "p3")), "p3"), undefined);
    assert.equal(parseProbe("10\nYQ==\n\n__CURSOR_EXEC_EXIT_p4=0__\n", "p4"), undefined);
    assert.equal(parseProbe("permission denied\n\n__CURSOR_EXEC_EXIT_p5=1__\n", "p5"), undefined);
  });
});

describe("write bridge", () => {
  const schema = (...names: string[]) => ({
    type: "object" as const,
    properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
  });
  const claude = classifyHostTools([
    { type: "function", name: "bash", inputSchema: schema("command", "description") },
    { type: "function", name: "write", inputSchema: schema("filePath", "content") },
    { type: "function", name: "edit", inputSchema: schema("filePath", "oldString", "newString") },
  ]);
  const gpt = classifyHostTools([
    { type: "function", name: "bash", inputSchema: schema("command", "description") },
    { type: "function", name: "apply_patch", inputSchema: schema("patchText") },
  ]);
  const reads = new Map([["/ws/notes.txt", "line one\nline two\nline three\nline four\n"]]);

  it("probes the file's bytes before editing, then edits them (Claude: edit)", () => {
    const files = new Map<string, RawFile | null | undefined>();
    const first = bridgeWriteExec("/ws/notes.txt", REQUESTED, {
      tools: claude,
      reads,
      files,
      nonce: () => "n",
    });
    assert.equal(first.type, "probe");
    assert.ok(first.type === "probe" && String(first.input.command).includes("base64"));
    files.set("/ws/notes.txt", rawOf(FILES.mixed ?? ""));
    const second = bridgeWriteExec("/ws/notes.txt", REQUESTED, {
      tools: claude,
      reads,
      files,
      nonce: () => "n",
    });
    assert.deepEqual(second.type === "call" && [second.toolName, second.input], ["edit", {
      filePath: "/ws/notes.txt",
      oldString: "line two",
      newString: "line TWO",
    }]);
    assert.equal(second.type === "call" && second.content, EXPECTED.mixed);
  });

  it("GPT: apply_patch with the file's carriage returns in context and removed lines", () => {
    const files = new Map([["/ws/notes.txt", rawOf(FILES.crlf ?? "")]]);
    const decision = bridgeWriteExec("/ws/notes.txt", REQUESTED, {
      tools: gpt,
      reads,
      files,
      nonce: () => "n",
    });
    assert.ok(decision.type === "call" && decision.toolName === "apply_patch");
    assert.equal(
      applyPatchLikeOpenCode(FILES.crlf ?? "", String(decision.input.patchText)),
      EXPECTED.crlf,
    );
  });

  it("keeps an intentional whole-file write as requested, and writes new files", () => {
    const files = new Map<string, RawFile | null | undefined>([
      ["/ws/notes.txt", rawOf(FILES.crlf ?? "")],
      ["/ws/new.txt", null],
    ]);
    const context = { tools: claude, reads, files, nonce: () => "n" };
    const rewrite = bridgeWriteExec("/ws/notes.txt", "all\nnew\n", context);
    assert.deepEqual(rewrite.type === "call" && [rewrite.toolName, rewrite.input.content], [
      "write",
      "all\nnew\n",
    ]);
    const created = bridgeWriteExec("/ws/new.txt", "hi\n", context);
    assert.deepEqual(created.type === "call" && [created.toolName, created.input.content], [
      "write",
      "hi\n",
    ]);
  });

  it("falls back to display text when the probe could not be trusted", () => {
    const files = new Map<string, RawFile | null | undefined>([["/ws/notes.txt", undefined]]);
    const decision = bridgeWriteExec("/ws/notes.txt", REQUESTED, {
      tools: claude,
      reads,
      files,
      nonce: () => "n",
    });
    assert.deepEqual(decision.type === "call" && decision.input.oldString, "line two");
  });
});
