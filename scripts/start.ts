/**
 * The main job: one chat turn through the provider, streamed as it arrives, with the
 * usage printed at the end. Against Cursor when `CURSOR_API_KEY` is set, otherwise
 * against the built-in Cursor emulator (started on loopback for this run).
 *
 * Usage: `npm start -- [--model <id>] [--transport sse|http2] ["your prompt"]`
 *
 * @module
 */
import { parseArgs } from "node:util";
import process from "node:process";
import { streamText } from "ai";
import { createCursor } from "../node.ts";
import { startCursorEmulator } from "../src/testing/mod.ts";

const { values, positionals } = parseArgs({
  args: Deno.args,
  options: {
    model: { type: "string" },
    transport: { type: "string", default: "sse" },
  },
  allowPositionals: true,
});
const prompt = positionals.join(" ").trim() || "Hello! In one sentence, what can you do?";
const transport = values.transport === "http2" ? "http2" : "sse";
const apiKey = process.env.CURSOR_API_KEY;

const emulator = apiKey ? undefined : await startCursorEmulator();
try {
  const cursor = emulator
    ? createCursor({
      apiKey: "crsr_local_emulator_key",
      apiBaseURL: emulator.url,
      allowLoopback: true,
      transport,
      ...(transport === "http2" && emulator.http2Url ? { agentBaseURL: emulator.http2Url } : {}),
      env: {},
    })
    : createCursor({ apiKey, transport });
  const model = values.model ?? (emulator ? "claude-4.5-sonnet" : "auto");
  console.error(
    emulator
      ? `No CURSOR_API_KEY set: using the built-in Cursor emulator at ${emulator.url} (model ${model}, ${transport})`
      : `Using Cursor with CURSOR_API_KEY (model ${model}, ${transport})`,
  );
  const result = streamText({ model: cursor(model), prompt, maxRetries: 1 });
  let failed = false;
  for await (const part of result.fullStream) {
    if (part.type === "text-delta") await Deno.stdout.write(new TextEncoder().encode(part.text));
    if (part.type === "reasoning-delta") {
      await Deno.stderr.write(new TextEncoder().encode(part.text));
    }
    if (part.type === "error") {
      failed = true;
      console.error(
        `\nError: ${part.error instanceof Error ? part.error.message : String(part.error)}`,
      );
    }
  }
  if (failed) Deno.exit(1);
  const usage = await result.usage;
  const raw = (await result.providerMetadata)?.cursor?.raw;
  console.log(
    `\n\nusage: context ${usage.inputTokens ?? 0} input + ${
      usage.outputTokens ?? 0
    } output tokens` +
      ` (cache read ${usage.inputTokenDetails.cacheReadTokens ?? 0})`,
  );
  if (raw) console.log(`cursor counters: ${JSON.stringify(raw)}`);
  if (emulator && emulator.violations().length > 0) {
    console.error(
      `emulator recorded protocol violations: ${JSON.stringify(emulator.violations())}`,
    );
    Deno.exit(1);
  }
} finally {
  await emulator?.close();
}
