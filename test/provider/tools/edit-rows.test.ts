/**
 * Edit rows (the spec's "File editing"): a host row exists from the moment an exec is
 * bridged, so Cursor's own result closes an edit that needs no host write, a binary write
 * becomes the image save tool's row, and a refused write is told to Cursor with its reason.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { emulatorProvider, hostTools, withEmulator } from "../../support/emulator.ts";
import { ExecServerMessageSchema } from "../../../src/gen/agent/v1/exec_pb.ts";
import { bridgeExec } from "../../../src/provider/direct/tools/exec-to-tool-call.ts";
import { execResultMessages } from "../../../src/provider/direct/tools/exec-results.ts";
import { classifyHostTools } from "../../../src/provider/direct/tools/host-tools.ts";

const schema = (...names: string[]) => ({
  type: "object" as const,
  properties: Object.fromEntries(names.map((n) => [n, { type: "string" }])),
});
const tools = classifyHostTools([
  { type: "function", name: "bash", inputSchema: schema("command", "description") },
  { type: "function", name: "edit", inputSchema: schema("filePath", "oldString", "newString") },
  { type: "function", name: "write", inputSchema: schema("filePath", "content") },
]);
const write = (path: string, fileText: string, fileBytes = new Uint8Array()) =>
  create(ExecServerMessageSchema, {
    id: 4,
    message: { case: "writeArgs", value: { path, fileText, fileBytes, toolCallId: "e1" } },
  });

describe("edit rows", () => {
  it("a write the file already holds gets Cursor's own result and no host write", () => {
    const files = new Map([["/ws/a.txt", { bom: false, text: "one\r\ntwo\r\n" }]]);
    const decision = bridgeExec(write("/ws/a.txt", "one\ntwo\n"), {
      tools,
      reads: new Map(),
      files,
      nonce: () => "n",
      workspaceRoot: "/ws",
    });
    assert.equal(decision.type, "answer");
    if (decision.type !== "answer") return;
    const [result] = execResultMessages(decision.result, {
      text: decision.text,
      isError: false,
      denied: false,
    });
    assert.ok(result?.case === "writeResult" && result.value.result?.case === "success");
    assert.equal(result.value.result.value.linesCreated, 2);
  });

  it("a binary write without the image save tool is refused with the reason", () => {
    const decision = bridgeExec(write("/ws/cat.png", "", new Uint8Array([0x89, 0x50])), {
      tools,
      reads: new Map(),
      files: new Map(),
      nonce: () => "n",
      workspaceRoot: "/ws",
    });
    assert.equal(decision.type, "refuse");
    assert.match(
      decision.type === "refuse" ? decision.reason : "",
      /need the host's cursor_image_save tool, which is not available in this session \(load the classic OpenCode plugin entry\)/,
    );
  });

  it("through a host loop: the probe runs, the identical edit prompts no write, Cursor hears success", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-edit-rows-"));
    try {
      const path = join(dir, "same.txt");
      writeFileSync(path, "keep\r\n");
      await withEmulator({}, async (emulator) => {
        const edits: unknown[] = [];
        const recordEdit = tool({
          description: "Edit a file",
          inputSchema: jsonSchema<{ filePath: string; oldString: string; newString: string }>(
            schema("filePath", "oldString", "newString"),
          ),
          execute: (input) => {
            edits.push(input);
            return "edited";
          },
        });
        const text = await streamText({
          model: emulatorProvider(emulator)("gpt-5"),
          prompt: `::edit ${path} keep => keep`,
          tools: { ...hostTools(dir), edit: recordEdit, write: recordEdit },
          stopWhen: stepCountIs(6),
          providerOptions: { cursor: { sessionId: "ses_same" } },
        }).text;
        assert.deepEqual(edits, [], "no host write");
        assert.equal(readFileSync(path, "utf8"), "keep\r\n");
        assert.match(text, /edit `.*same\.txt`: wrote 1 line\(s\)/);
        assert.deepEqual(emulator.violations(), []);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an edit that fails after the authorized read ends with Cursor's own error, no host write", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-edit-rows-"));
    try {
      const path = join(dir, "a.txt");
      writeFileSync(path, "alpha\n");
      await withEmulator({}, async (emulator) => {
        const calls: string[] = [];
        const host = hostTools(dir);
        const text = await streamText({
          model: emulatorProvider(emulator)("gpt-5"),
          prompt: `::edit ${path} missing => x`,
          tools: {
            read: tool({
              ...host.read,
              execute: (input, options) => {
                calls.push("read");
                return host.read.execute?.(input, options) ?? "";
              },
            }),
            edit: tool({
              description: "Edit a file",
              inputSchema: jsonSchema<{ filePath: string }>(schema("filePath")),
              execute: () => {
                calls.push("edit");
                return "edited";
              },
            }),
          },
          stopWhen: stepCountIs(6),
          providerOptions: { cursor: { sessionId: "ses_missing" } },
        }).text;
        assert.deepEqual(calls, ["read"], "the read ran through the host; nothing was written");
        assert.match(text, /edit `.*a\.txt` failed: the old text is not in the file/);
        assert.equal(readFileSync(path, "utf8"), "alpha\n");
        assert.deepEqual(emulator.violations(), []);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
