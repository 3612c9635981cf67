import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { generateText, streamText } from "ai";
import { createCursor } from "../../mod.ts";
import { CursorError } from "../../src/core/cursor-error.ts";
import { createScriptedTransport, replyWithText } from "../support/scripted-transport.ts";

const base = {
  accessToken: "test-token",
  agentBaseURL: "https://agent.cursor.sh",
  machineId: "a".repeat(64),
} as const;

describe("Cursor language model over a stub transport", () => {
  it("streams text through the ai package and reports occupancy usage with raw counters", async () => {
    const transport = createScriptedTransport((server) =>
      replyWithText(server, ["Hel", "lo ", "there"])
    );
    const cursor = createCursor({ ...base, transport, usage: "occupancy" });
    const result = streamText({
      model: cursor("composer-2"),
      system: "Be brief",
      prompt: "Say hello",
    });
    let text = "";
    for await (const delta of result.textStream) text += delta;
    assert.equal(text, "Hello there");
    const usage = await result.usage;
    assert.equal(usage.inputTokens, 1199);
    assert.equal(usage.outputTokens, 1);
    const metadata = (await result.providerMetadata)?.cursor as Record<string, unknown>;
    assert.deepEqual(metadata.raw, {
      inputTokens: 5000,
      outputTokens: 40,
      cacheReadTokens: 3000,
      cacheWriteTokens: 0,
      reasoningTokens: 0,
    });
    assert.equal(await result.finishReason, "stop");
  });

  it("sends the system prompt as a rule, the user text, the model and the auth headers", async () => {
    const transport = createScriptedTransport((server) => replyWithText(server, ["ok"]));
    const cursor = createCursor({ ...base, transport });
    await generateText({
      model: cursor("claude-x"),
      system: "Always answer in French",
      prompt: "Bonjour",
      providerOptions: {
        cursor: {
          cursorVariantParameters: [{ id: "thinking", value: "true" }, {
            id: "context",
            value: "1m",
          }],
        },
      },
    });
    const run = transport.runs[0];
    assert.ok(run);
    assert.equal(run.options.headers.authorization, "Bearer test-token");
    assert.match(run.options.headers["x-cursor-checksum"] ?? "", /[a]{64}$/);
    const first = run.server.received[0];
    assert.equal(first?.message.case, "runRequest");
    if (first?.message.case !== "runRequest") return;
    const request = first.message.value;
    assert.ok(request.conversationState, "conversation_state is always present");
    assert.equal(request.requestedModel?.modelId, "claude-x");
    assert.equal(request.requestedModel?.maxMode, true, "a 1m context parameter implies Max Mode");
    assert.deepEqual(request.requestedModel?.parameters.map((p) => `${p.id}=${p.value}`), [
      "thinking=true",
      "context=1m",
    ]);
    const action = request.action?.action;
    assert.equal(action?.case, "userMessageAction");
    if (action?.case !== "userMessageAction") return;
    assert.equal(action.value.userMessage?.text, "Bonjour");
    assert.equal(action.value.requestContext?.rules[0]?.content, "Always answer in French");
  });

  it("answers KV set and get requests from the blob store", async () => {
    const blob = new TextEncoder().encode('{"role":"system"}');
    const id = new Uint8Array(await crypto.subtle.digest("SHA-256", blob));
    const transport = createScriptedTransport(async (server) => {
      await server.next((m) => m.message.case === "runRequest");
      server.emit({
        message: {
          case: "kvServerMessage",
          value: { id: 1, message: { case: "setBlobArgs", value: { blobId: id, blobData: blob } } },
        },
      });
      const ack = await server.next((m) => m.message.case === "kvClientMessage");
      assert.equal(ack.message.case === "kvClientMessage" && ack.message.value.id, 1);
      server.emit({
        message: {
          case: "kvServerMessage",
          value: { id: 2, message: { case: "getBlobArgs", value: { blobId: id } } },
        },
      });
      const answer = await server.next((m) => m.message.case === "kvClientMessage");
      assert.ok(
        answer.message.case === "kvClientMessage" &&
          answer.message.value.message.case === "getBlobResult",
      );
      assert.deepEqual(answer.message.value.message.value.blobData, blob);
      replyAfterStart(server);
    });
    const cursor = createCursor({ ...base, transport });
    const { text } = await generateText({ model: cursor("composer-2"), prompt: "x" });
    assert.equal(text, "done");
  });

  it("treats an end of stream before turn_ended as an error, never a silent stop", async () => {
    const transport = createScriptedTransport(async (server) => {
      await server.next((m) => m.message.case === "runRequest");
      server.emit({
        message: {
          case: "interactionUpdate",
          value: { message: { case: "textDelta", value: { text: "partial" } } },
        },
      });
      server.end();
    });
    const cursor = createCursor({ ...base, transport });
    const result = streamText({ model: cursor("composer-2"), prompt: "x" });
    const parts: string[] = [];
    let error: unknown;
    for await (const part of result.fullStream) {
      parts.push(part.type);
      if (part.type === "error") error = part.error;
    }
    assert.ok(parts.includes("error"), `parts: ${parts.join(",")}`);
    assert.ok(!parts.includes("finish") || (await result.finishReason) !== "stop");
    assert.match(String((error as Error).message), /before turn_ended/);
  });

  it("throws a retryable APICallError when the Run fails before any output", async () => {
    const transport = createScriptedTransport(async (server) => {
      await server.next((m) => m.message.case === "runRequest");
      server.end(
        // A server wait longer than the provider replays inline goes to the host.
        new CursorError("unavailable", "Cursor answered unavailable", {
          retryable: true,
          replaySafe: true,
          retryAfterMs: 1000,
        }),
      );
    });
    const cursor = createCursor({ ...base, transport });
    const model = cursor("composer-2");
    await assert.rejects(
      Promise.resolve(
        model.doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "x" }] }] }),
      ),
      (error: unknown) => (error as { isRetryable?: boolean }).isRetryable === true,
    );
  });

  it("turns unsupported call options into warnings", async () => {
    const transport = createScriptedTransport((server) => replyWithText(server, ["ok"]));
    const cursor = createCursor({ ...base, transport });
    const result = await generateText({
      model: cursor("composer-2"),
      prompt: "x",
      temperature: 0.3,
      seed: 4,
    });
    const features = result.warnings?.map((w) => ("feature" in w ? w.feature : w.type));
    assert.deepEqual(features, ["temperature", "seed"]);
  });

  it("rejects malformed provider options clearly", async () => {
    const transport = createScriptedTransport((server) => replyWithText(server, ["ok"]));
    const cursor = createCursor({ ...base, transport });
    await assert.rejects(
      generateText({
        model: cursor("composer-2"),
        prompt: "x",
        providerOptions: { cursor: { cursorVariantParameters: "high" } },
        maxRetries: 0,
      }),
      /cursorVariantParameters must be an array/,
    );
  });
});

function replyAfterStart(server: Parameters<typeof replyWithText>[0]): void {
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "textDelta", value: { text: "done" } } },
    },
  });
  server.emit({
    message: {
      case: "interactionUpdate",
      value: { message: { case: "turnEnded", value: { inputTokens: 1n } } },
    },
  });
  server.end();
}
