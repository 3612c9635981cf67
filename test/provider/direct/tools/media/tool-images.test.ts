import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, jsonSchema, type ModelMessage, tool, type ToolSet } from "ai";
import { emulatorProvider, withEmulator } from "../../../../support/emulator.ts";
import {
  sniffImageType,
  withToolImages,
} from "../../../../../src/provider/direct/tools/media/tool-images.ts";
import { toolResultImages } from "../../../../../src/provider/direct/tools/media/tool-media.ts";
import { trailingToolResults } from "../../../../../src/provider/direct/call/prompt-digests.ts";
import { convertPrompt } from "../../../../../src/provider/direct/call/convert-prompt.ts";
import { CursorError } from "../../../../../src/core/cursor-error.ts";

/** A 1×1 PNG (70 bytes). */
const PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const PNG = Uint8Array.from(atob(PNG_BASE64), (c) => c.charCodeAt(0));
/** Another image: a minimal GIF header. */
const GIF_BASE64 = btoa("GIF89a\u0001\u0000\u0001\u0000\u0000\u0000\u0000;");

const readTools: ToolSet = {
  read: tool({
    description: "Read a file",
    inputSchema: jsonSchema<{ filePath: string }>({
      type: "object",
      properties: { filePath: { type: "string" } },
      required: ["filePath"],
    }),
  }),
};

/** OpenCode 1.18.33's shape: the read's text, then its images in a user message of their own. */
function openCodeRead(call: { toolCallId: string; input: unknown }, images: string[]) {
  return [
    {
      role: "assistant",
      content: [{
        type: "tool-call",
        toolCallId: call.toolCallId,
        toolName: "read",
        input: call.input,
      }],
    },
    {
      role: "tool",
      content: [{
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: "read",
        output: { type: "text", value: "Image read successfully" },
      }],
    },
    {
      role: "user",
      content: [
        { type: "text", text: "Attached media from tool result:" },
        ...images.map((data) => ({ type: "file" as const, mediaType: "image/png", data })),
      ],
    },
  ] satisfies ModelMessage[];
}

describe("tool images: pieces", () => {
  it("sniffs the type from the bytes, not the claim", () => {
    assert.equal(sniffImageType(PNG), "image/png");
    assert.equal(sniffImageType(new TextEncoder().encode("GIF89a....")), "image/gif");
    assert.equal(sniffImageType(new TextEncoder().encode("not an image")), undefined);
  });

  it("finds the tool results and their images behind OpenCode's media message", () => {
    const messages = openCodeRead({ toolCallId: "c1", input: { filePath: "/p/dot.png" } }, [
      PNG_BASE64,
    ]);
    const prompt = messages.map((m) =>
      m.role === "assistant" ? { ...m, content: m.content.map((p) => ({ ...p })) } : m
    ) as never;
    const results = trailingToolResults(prompt);
    assert.deepEqual(results.map((r) => r.toolCallId), ["c1"]);
    const images = toolResultImages(prompt, results).get("c1");
    assert.equal(images?.length, 1);
    assert.deepEqual(images?.[0]?.data, PNG);
  });

  it("sends an image once per conversation, and notes one over the bound", async () => {
    const read = {
      case: "readResult" as const,
      value: {
        result: {
          case: "success" as const,
          value: {
            path: "/a.png",
            output: { case: "content" as const, value: "Image read successfully" },
          },
        },
      },
    };
    const scope = { acceptsImages: true, modelId: "gpt-5", sent: new Set<string>() };
    const [first] = await withToolImages([read], [{ data: PNG, mediaType: "image/png" }], scope);
    assert.equal(
      first?.case === "readResult" && first.value.result?.case === "success" &&
        first.value.result.value.output?.case,
      "data",
    );
    const [again] = await withToolImages([read], [{ data: PNG, mediaType: "image/png" }], scope);
    const againText = again?.case === "readResult" && again.value.result?.case === "success" &&
        again.value.result.value.output?.case === "content"
      ? again.value.result.value.output.value
      : "";
    assert.match(
      againText ?? "",
      /The same image \(image\/png, sha256 [0-9a-f]{16}\) was sent before/,
    );
    const huge = new Uint8Array(20 * 1024 * 1024 + 1);
    huge.set(PNG);
    const [over] = await withToolImages([read], [{ data: huge, mediaType: "image/png" }], scope);
    const overText = over?.case === "readResult" && over.value.result?.case === "success" &&
        over.value.result.value.output?.case === "content"
      ? over.value.result.value.output.value
      : "";
    assert.match(overText ?? "", /over the 20 MiB limit/);
  });
});

describe("user images get the same bounds", () => {
  const userImage = (data: Uint8Array, mediaType = "image/jpeg") => ({
    type: "file" as const,
    data,
    mediaType,
  });

  it("types an image by its bytes and sends the same bytes once", () => {
    const converted = convertPrompt([{
      role: "user",
      content: [{ type: "text", text: "look" }, userImage(PNG), userImage(PNG)],
    }], { supportsImages: true });
    assert.deepEqual(converted.images.map((image) => image.mimeType), ["image/png"]);
    assert.deepEqual(converted.warnings.map((w) => w.type === "other" ? w.message : ""), [
      "The same image was attached twice; it is sent once",
    ]);
  });

  it("refuses an image over 20 MiB with a clear error", () => {
    const huge = new Uint8Array(20 * 1024 * 1024 + 1);
    huge.set(PNG);
    assert.throws(
      () => convertPrompt([{ role: "user", content: [userImage(huge)] }], { supportsImages: true }),
      (error: unknown) =>
        error instanceof CursorError && error.code === "invalid_argument" &&
        error.message ===
          "An image of 20971521 bytes is over the 20 MiB limit; attach a smaller image",
    );
  });
});

describe("tool images reach Cursor's model in the same turn (emulator)", () => {
  it("a PNG that OpenCode's read returns reaches the model as the read's image bytes", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const session = { providerOptions: { cursor: { sessionId: "ses_read_png" } } };
      const messages: ModelMessage[] = [{ role: "user", content: "::read /p/dot.png" }];
      const first = await generateText({
        model: cursor("gpt-5"),
        messages,
        tools: readTools,
        ...session,
        maxRetries: 0,
      });
      const [call] = first.toolCalls;
      assert.equal(call?.toolName, "read");
      messages.push(...openCodeRead(call ?? { toolCallId: "", input: {} }, [PNG_BASE64]));
      const second = await generateText({
        model: cursor("gpt-5"),
        messages,
        tools: readTools,
        ...session,
        maxRetries: 0,
      });
      assert.match(second.text, /read `\/p\/dot.png`: \[image image\/png, 70 bytes\]/);
      const runs = emulator.runs();
      assert.equal(runs.length, 1, "the held Run took the result: no new user turn");
      const context = (runs[0]?.modelCalls.at(-1)?.context ?? []).join("\n");
      assert.match(context, /\[image image\/png, 70 bytes\]/);
      assert.deepEqual(emulator.violations(), []);
      // The next turn does not send the image again: only the new user text goes out.
      messages.push({ role: "assistant", content: second.text });
      messages.push({ role: "user", content: "::text next" });
      const third = await generateText({
        model: cursor("gpt-5"),
        messages,
        ...session,
        maxRetries: 0,
      });
      assert.equal(third.text, "next");
      const next = emulator.runs().at(-1);
      assert.equal(next?.continuity, "warm");
      assert.deepEqual(next?.images, []);
      assert.equal(next?.userText, "::text next");
    });
  });

  it("a text-only model gets a short note instead of the image, and the turn goes on", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const session = { providerOptions: { cursor: { sessionId: "ses_text_only" } } };
      const messages: ModelMessage[] = [{ role: "user", content: "::read /p/dot.png" }];
      const first = await generateText({
        model: cursor("composer-1"),
        messages,
        tools: readTools,
        ...session,
        maxRetries: 0,
      });
      const [call] = first.toolCalls;
      messages.push(...openCodeRead(call ?? { toolCallId: "", input: {} }, [PNG_BASE64]));
      const second = await generateText({
        model: cursor("composer-1"),
        messages,
        tools: readTools,
        ...session,
        maxRetries: 0,
      });
      assert.match(
        second.text,
        /Image read successfully\n\[An image \(image\/png, 70 bytes\) was left out: model "composer-1" does not accept images\]/,
      );
      assert.equal(emulator.runs().length, 1);
    });
  });

  it("a host tool's image content (the AI SDK's own shape) reaches the model as MCP image content", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const tools: ToolSet = {
        snapshot: tool({
          description: "Takes a snapshot",
          inputSchema: jsonSchema<Record<string, never>>({ type: "object", properties: {} }),
          execute: () => Promise.resolve("taken"),
          toModelOutput: () => ({
            type: "content",
            value: [
              { type: "text", text: "snapshot taken" },
              { type: "image-data", data: GIF_BASE64, mediaType: "image/png" },
              { type: "image-data", data: btoa("plain text"), mediaType: "image/png" },
            ],
          }),
        }),
      };
      const result = await generateText({
        model: cursor("gpt-5"),
        prompt: "::mcp snapshot",
        tools,
        stopWhen: () => false,
        providerOptions: { cursor: { sessionId: "ses_mcp_image" } },
        maxRetries: 0,
      }).catch((error: unknown) => error);
      const text = (result as { text?: string }).text ?? String(result);
      assert.match(
        text,
        /snapshot taken\n\[image image\/gif, 14 bytes\]\n\[An attachment \("image\/png", 10 bytes\) is no image/,
      );
      assert.match(text, /is no image and was left out/);
      // The claimed PNG was a GIF: sent as what its bytes are, so Cursor sees no mislabel.
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("after a restart the rebuilt Run carries the tool's image; a text-only model gets none and a warning", async () => {
    for (const [model, images] of [["gpt-5", ["image/png"]], ["composer-1", []]] as const) {
      await withEmulator({}, async (emulator) => {
        const session = { providerOptions: { cursor: { sessionId: `ses_restart_${model}` } } };
        const messages: ModelMessage[] = [{ role: "user", content: "::read /p/dot.png" }];
        const first = await generateText({
          model: emulatorProvider(emulator)(model),
          messages,
          tools: readTools,
          ...session,
          maxRetries: 0,
        });
        const [call] = first.toolCalls;
        messages.push(...openCodeRead(call ?? { toolCallId: "", input: {} }, [PNG_BASE64]));
        // A new provider: the held Run is gone, the turn is rebuilt from host history.
        const second = await generateText({
          model: emulatorProvider(emulator)(model),
          messages,
          tools: readTools,
          ...session,
          maxRetries: 0,
        });
        assert.ok(second.text.length > 0);
        const rebuilt = emulator.runs().at(-1);
        assert.equal(rebuilt?.continuity, "cold");
        assert.deepEqual(rebuilt?.images, images, model);
        assert.match(rebuilt?.userText ?? "", /The tool calls above have finished/);
        if (images.length === 0) {
          assert.match(rebuilt?.userText ?? "", /\[image\/png attachment\]/);
          const said = second.warnings?.map((w) => (w.type === "other" ? w.message : "")) ?? [];
          assert.ok(
            said.includes(
              '1 image(s) from tool results were left out: model "composer-1" does not accept images',
            ),
            JSON.stringify(said),
          );
        }
      });
    }
  });
});
