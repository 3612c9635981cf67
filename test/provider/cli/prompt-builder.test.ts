/** The prompt builder, metadata-request detection and the tool fingerprint. */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import type { LanguageModelV3FunctionTool, LanguageModelV3Prompt } from "@ai-sdk/provider";
import {
  buildFullPrompt,
  buildIncrementalPrompt,
} from "../../../src/provider/cli/prompt-builder.ts";
import { detectMetadataPrompt } from "../../../src/provider/cli/meta-prompt.ts";
import { hostToolsOf, toolFingerprint } from "../../../src/provider/cli/tool-fingerprint.ts";

const text = (value: string) => ({ type: "text" as const, text: value });

const BASH: LanguageModelV3FunctionTool = {
  type: "function",
  name: "bash",
  description: "Runs a command.",
  inputSchema: {
    type: "object",
    properties: { command: { type: "string" } },
    required: ["command"],
  },
};

const CONVERSATION: LanguageModelV3Prompt = [
  { role: "system", content: "Be careful." },
  {
    role: "user",
    content: [text("List files"), {
      type: "file",
      mediaType: "image/png",
      data: "AAAA",
      filename: "shot.png",
    }],
  },
  {
    role: "assistant",
    content: [
      text("Listing."),
      { type: "reasoning", text: "hidden" },
      { type: "tool-call", toolCallId: "c1", toolName: "bash", input: { command: "ls" } },
    ],
  },
  {
    role: "tool",
    content: [{
      type: "tool-result",
      toolCallId: "c1",
      toolName: "bash",
      output: { type: "text", value: "a.txt" },
    }],
  },
];

describe("full prompt", () => {
  it("puts system text, tools and every message into one text", () => {
    assert.equal(
      buildFullPrompt(CONVERSATION, [BASH]),
      [
        "SYSTEM: Be careful.",
        [
          "HOST TOOLS: The application you work for can run the tools below. When one fits, use your own tool of the same kind (shell for bash, read, edit, write, grep, glob, todo updates, web fetch); the application runs it and sends the result back in the next message.",
          "- bash: Runs a command.",
          '  Parameters: {"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}',
        ].join("\n"),
        "USER: List files\n[image attached: shot.png; not available to this model]",
        'ASSISTANT: Listing.\nTOOL_CALL (id: c1, name: bash): {"command":"ls"}',
        "TOOL_RESULT (id: c1, name: bash): a.txt",
        "CONTINUE: The tool calls above have run. Continue from their results.",
      ].join("\n\n"),
    );
  });

  it("renders every kind of tool output", () => {
    const prompt: LanguageModelV3Prompt = [{
      role: "tool",
      content: [
        {
          type: "tool-result",
          toolCallId: "a",
          toolName: "t",
          output: { type: "json", value: { ok: true } },
        },
        {
          type: "tool-result",
          toolCallId: "b",
          toolName: "t",
          output: { type: "error-text", value: "bad" },
        },
        {
          type: "tool-result",
          toolCallId: "c",
          toolName: "t",
          output: { type: "execution-denied" },
        },
      ],
    }];
    const built = buildFullPrompt(prompt, []);
    assert.match(built, /TOOL_RESULT \(id: a, name: t\): \{"ok":true\}/);
    assert.match(built, /TOOL_RESULT \(id: b, name: t\): ERROR: bad/);
    assert.match(built, /TOOL_RESULT \(id: c, name: t\): DENIED: /);
  });
});

describe("incremental prompt", () => {
  it("sends only the new user text", () => {
    const prompt: LanguageModelV3Prompt = [...CONVERSATION, {
      role: "assistant",
      content: [text("Done")],
    }, {
      role: "user",
      content: [text("  Thanks, now count them  ")],
    }];
    assert.equal(buildIncrementalPrompt(prompt, 5), "Thanks, now count them");
  });

  it("sends tool results with the calls they answer", () => {
    assert.equal(
      buildIncrementalPrompt(CONVERSATION, 3),
      'ASSISTANT:\nTOOL_CALL (id: c1, name: bash): {"command":"ls"}\n\nTOOL_RESULT (id: c1, name: bash): a.txt\n\nCONTINUE: The tool calls above have run. Continue from their results.',
    );
  });

  it("refuses shapes it cannot send alone", () => {
    assert.equal(buildIncrementalPrompt(CONVERSATION, 2), undefined, "assistant message");
    assert.equal(buildIncrementalPrompt(CONVERSATION, 1), undefined, "several messages");
    assert.equal(
      buildIncrementalPrompt([{ role: "user", content: [text("  ")] }], 0),
      undefined,
      "blank user",
    );
    assert.equal(buildIncrementalPrompt(CONVERSATION, 9), undefined, "nothing new");
  });
});

describe("metadata requests", () => {
  it("recognises the title request OpenCode sends today", () => {
    assert.equal(
      detectMetadataPrompt([
        {
          role: "system",
          content: "You are a title generator. You output ONLY a thread title. Nothing else.",
        },
        { role: "user", content: [text("Generate a title for this conversation:\n")] },
        { role: "user", content: [text("fix the login bug")] },
      ]),
      "title",
    );
    assert.equal(
      detectMetadataPrompt([{
        role: "user",
        content: [text("Generate a title for this conversation:\n")],
      }]),
      "title",
    );
  });

  it("recognises compaction and session summaries", () => {
    assert.equal(
      detectMetadataPrompt([{
        role: "system",
        content: "You are summarizing a conversation for continuation by another agent.",
      }]),
      "compaction",
    );
    assert.equal(
      detectMetadataPrompt([{
        role: "system",
        content: "Summarize what was done in this conversation. Write like a PR.",
      }]),
      "summary",
    );
  });

  it("does not mistake a user who talks about titles for a title request", () => {
    assert.equal(
      detectMetadataPrompt([
        { role: "system", content: "You are a coding agent." },
        {
          role: "user",
          content: [text("Write a title generator for blog posts and generate a brief title")],
        },
      ]),
      undefined,
    );
  });
});

describe("tool fingerprint", () => {
  it("is empty without tools and changes with any description or schema change", async () => {
    assert.equal(await toolFingerprint(undefined), "");
    const base = await toolFingerprint([BASH]);
    assert.equal(await toolFingerprint([{ ...BASH }]), base);
    assert.notEqual(
      await toolFingerprint([{ ...BASH, description: "Runs a shell command." }]),
      base,
    );
    assert.notEqual(
      await toolFingerprint([{
        ...BASH,
        inputSchema: { type: "object", properties: { command: { type: "number" } } },
      }]),
      base,
    );
  });

  it("does not depend on the order tools arrive in", async () => {
    const read: LanguageModelV3FunctionTool = {
      type: "function",
      name: "read",
      inputSchema: { type: "object" },
    };
    assert.equal(await toolFingerprint([BASH, read]), await toolFingerprint([read, BASH]));
  });

  it("describes host tools by their properties and required names", () => {
    assert.deepEqual(hostToolsOf([BASH]), [{
      name: "bash",
      properties: ["command"],
      required: ["command"],
    }]);
  });
});
