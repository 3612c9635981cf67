import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ModelMessage, stepCountIs, streamText } from "ai";
import { createMemoryLogger } from "../../src/core/logger.ts";
import { CURSOR_PRICING } from "../../src/billing/cursor-pricing.ts";
import { lookupPrice } from "../../src/billing/price-lookup.ts";
import { runRealCost } from "../../src/billing/step-cost.ts";
import { emulatorProvider, hostTools, withEmulator } from "../support/emulator.ts";

const NANO_AIU_PER_USD = 100_000_000_000;

/** `key=value` fields of a log line. */
function fields(line: string): Record<string, string> {
  return Object.fromEntries(
    line.split(" ").filter((f) => f.includes("=")).map((f) => f.split("=", 2) as [string, string]),
  );
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Charges carried by each finish of a stream, in nano-AIU. */
async function charges(
  result: { fullStream: AsyncIterable<{ type: string; providerMetadata?: unknown }> },
): Promise<number[]> {
  const out: number[] = [];
  for await (const part of result.fullStream) {
    if (part.type !== "finish-step") continue;
    const metadata = part.providerMetadata as { copilot?: { totalNanoAiu?: number } } | undefined;
    const copilot = metadata?.copilot;
    assert.ok(copilot && typeof copilot.totalNanoAiu === "number", "every finish carries a charge");
    out.push(copilot.totalNanoAiu);
  }
  return out;
}

describe("billing ledger wired to finishes", () => {
  it("bills each tool step, settles the Run at its end, and logs billing: after every finish", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-billing-"));
    try {
      await withEmulator({}, async (emulator) => {
        const { logger, lines } = createMemoryLogger();
        const cursor = emulatorProvider(emulator, "sse", { debug: logger });
        const result = streamText({
          model: cursor("gpt-5"),
          prompt: "::shell echo one\n::shell echo two\n::text Done",
          tools: hostTools(dir),
          stopWhen: stepCountIs(5),
          providerOptions: { cursor: { sessionId: "ses_bill" } },
        });
        const sent = await charges(result);
        assert.equal(sent.length, 3, "two tool steps and the turn end");
        const finishes = lines.filter((l) => l.startsWith("finish: reason="));
        const billing = lines.filter((l) => l.startsWith("billing: step="));
        assert.equal(billing.length, finishes.length, "a billing: line after every finish");
        assert.deepEqual(billing.map((l) => fields(l).step), ["estimate", "estimate", "turn-end"]);
        assert.ok(sent.every((c) => c > 0), "a priced model costs something at every step");
        const real = lines.find((l) => l.startsWith("billing: turn real="));
        assert.ok(real, "the Run's counters were priced");
        const last = fields(billing[2] ?? "");
        const billed = sent.reduce((a, b) => a + b, 0);
        assert.equal(last.sessionBilledUsd, (billed / NANO_AIU_PER_USD).toFixed(6));
        assert.equal(last.sessionRealUsd, last.sessionBilledUsd, "the turn end settles the Run");
        assert.equal(last.sessionEstimatedUsd, "0.000000");
        assert.equal(last.outstandingUsd, "0.000000");
        assert.equal(last.delivered, "true");
        assert.ok(
          lines.some((l) =>
            /^finish: reason=tool-calls source=occupancy-checkpoint-current-run .*occupancyIn=\d+ occupancyCacheRead=\d+ occupancyCacheWrite=0$/
              .test(l)
          ),
        );
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("an unpriced model (Auto) bills nothing and says so", async () => {
    await withEmulator({}, async (emulator) => {
      const { logger, lines } = createMemoryLogger();
      const cursor = emulatorProvider(emulator, "sse", { debug: logger });
      const sent = await charges(streamText({ model: cursor("default"), prompt: "Hello" }));
      assert.deepEqual(sent, [0]);
      const billing = lines.filter((l) => l.startsWith("billing: step="));
      assert.equal(billing.length, 1);
      assert.match(billing[0] ?? "", /stepUsd=0\.000000 .*delivered=true pricing=unpriced$/);
    });
  });

  it("a Fast variant is billed at the model's Fast rates", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse");
      const variant = (fast: string) => ({
        cursor: {
          cursorVariantParameters: [{ id: "reasoning", value: "medium" }, {
            id: "fast",
            value: fast,
          }],
        },
      });
      const standard = await charges(
        streamText({ model: cursor("gpt-5"), prompt: "Hello", providerOptions: variant("false") }),
      );
      const fast = await charges(
        streamText({ model: cursor("gpt-5"), prompt: "Hello", providerOptions: variant("true") }),
      );
      const [first, second] = emulator.runs();
      assert.ok(first && second);
      assert.deepEqual(second.parameters, { reasoning: "medium", fast: "true" });
      const cost = (fast: boolean, counters: typeof first.counters) =>
        runRealCost(
          lookupPrice(CURSOR_PRICING, {
            modelId: "gpt-5",
            parameters: [{ id: "fast", value: String(fast) }],
          }),
          {
            inputTokens: counters.input,
            cacheReadTokens: counters.cacheRead,
            cacheWriteTokens: counters.cacheWrite,
            outputTokens: counters.output,
          },
          0,
        );
      assert.deepEqual(standard, [cost(false, first.counters)]);
      assert.deepEqual(fast, [cost(true, second.counters)]);
      assert.ok((fast[0] ?? 0) > (standard[0] ?? 0), "GPT-5 Fast costs twice the standard rates");
    });
  });

  it("random step, finish and interrupt sequences never bill twice or credit a later Run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cursor-billing-"));
    let interruptedTotal = 0;
    try {
      for (const seed of [1, 2, 3]) {
        const next = random(seed);
        await withEmulator({}, async (emulator) => {
          const { logger, lines } = createMemoryLogger();
          const cursor = emulatorProvider(emulator, "sse", { debug: logger });
          const messages: ModelMessage[] = [];
          let billed = 0;
          let interrupted = 0;
          for (let turn = 0; turn < 5; turn++) {
            const tools = Math.floor(next() * 3);
            const interrupt = tools > 0 && turn < 4 && next() < 0.5;
            if (interrupt) interrupted++;
            const script = [
              ...Array.from({ length: tools }, (_, i) => `::shell echo ${turn}-${i}`),
              `::text Turn ${turn} done`,
            ].join("\n");
            messages.push({ role: "user", content: script });
            const result = streamText({
              model: cursor("gpt-5"),
              messages,
              tools: hostTools(dir),
              // An interrupted turn stops after its first tool step: the next user turn
              // supersedes the held Run, which never sends its counters.
              stopWhen: stepCountIs(interrupt ? 1 : 6),
              providerOptions: { cursor: { sessionId: `ses_${seed}` } },
            });
            billed += (await charges(result)).reduce((a, b) => a + b, 0);
            messages.push(...(await result.response).messages);
          }
          const billing = lines.filter((l) => l.startsWith("billing: step=")).map(fields);
          assert.equal(billing.length, lines.filter((l) => l.startsWith("finish:")).length);
          const last = billing[billing.length - 1];
          assert.ok(last);
          assert.equal(
            last.sessionBilledUsd,
            (billed / NANO_AIU_PER_USD).toFixed(6),
            `seed ${seed}: the ledger's billed total is exactly what the finishes carried`,
          );
          const runs = new Map<string, number>();
          for (const record of billing) {
            assert.ok(Number(record.stepUsd) >= 0, `seed ${seed}: no negative charge`);
            if (record.step === "turn-end") {
              const run = record.run ?? "";
              runs.set(run, (runs.get(run) ?? 0) + 1);
              assert.ok(Number(record.dueUsd) >= 0, `seed ${seed}: no credit against a Run`);
              assert.equal(record.outstandingUsd, "0.000000", `seed ${seed}: settled`);
            }
          }
          assert.ok([...runs.values()].every((n) => n === 1), "each Run settles once");
          assert.equal(
            lines.filter((l) => l.includes("reason=superseded-by-new-run")).length,
            interrupted,
            `seed ${seed}: every interrupted Run was released`,
          );
          assert.equal(runs.size, 5 - interrupted, `seed ${seed}: only completed Runs settle`);
          interruptedTotal += interrupted;
        });
      }
      assert.ok(interruptedTotal > 0, "the sequences include interrupted Runs");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
