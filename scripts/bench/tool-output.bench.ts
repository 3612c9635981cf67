/**
 * A 50 MB tool result on its way to Cursor: the host's shell output turned into exec
 * result frames, each encoded as an `AgentClientMessage` inside a hex `BidiAppend` (the
 * SSE path). Reports the longest event-loop block (one synchronous stretch), its cost
 * per MB of result, and peak memory growth ÷ result size, side by side with a baseline:
 * one `TextEncoder.encode` of the result (the least any client must touch).
 * Targets: a few ms per MB; memory ÷ size ≤ 3.
 *
 * Prints `tool-output: key=value` lines.
 *
 * @module
 */
import { create, toBinary } from "@bufbuild/protobuf";
import { AgentClientMessageSchema } from "../../src/gen/agent/v1/client_message_pb.ts";
import { encodeBidiAppend } from "../../src/protocol/bidi-append.ts";
import { execResultMessages } from "../../src/provider/direct/tools/exec-results.ts";

const SIZE = 50 * 1024 * 1024;
const MB = SIZE / (1024 * 1024);
const output = "0123456789abcdef\n".repeat(Math.ceil(SIZE / 17)).slice(0, SIZE);
// A flat string, as the host's JSON gives it.
const hostText = [output, "\n__CURSOR_EXEC_EXIT_bench=0__\n"].join("");

function baseline(): number {
  return new TextEncoder().encode(output).length;
}

function toCursor(): number {
  const frames = execResultMessages(
    {
      kind: "shell",
      command: "cat big.log",
      cwd: "/ws",
      nonce: "bench",
      stream: true,
      background: false,
    },
    { text: hostText, isError: false, denied: false },
  );
  let bytes = 0;
  frames.forEach((frame, seqno) => {
    const message = toBinary(
      AgentClientMessageSchema,
      create(AgentClientMessageSchema, {
        message: { case: "execClientMessage", value: { id: 1, message: frame } },
      }),
    );
    bytes += encodeBidiAppend("bench", seqno, message).length;
  });
  return bytes;
}

function measure(run: () => number): { ms: number; rssGrowth: number; bytes: number } {
  const before = Deno.memoryUsage().rss;
  const started = performance.now();
  const bytes = run();
  const ms = performance.now() - started;
  return { ms, rssGrowth: Math.max(0, Deno.memoryUsage().rss - before), bytes };
}

const base = measure(baseline);
const ours = measure(toCursor);
const line = (key: string, value: string | number) => console.log(`tool-output: ${key}=${value}`);
line("result_mb", MB);
line("baseline_block_ms", base.ms.toFixed(1));
line("block_ms", ours.ms.toFixed(1));
line("block_ms_per_mb", (ours.ms / MB).toFixed(2));
line("ratio_block_vs_baseline", (ours.ms / base.ms).toFixed(2));
line("peak_memory_over_size", (ours.rssGrowth / SIZE).toFixed(2));
line("appended_bytes", ours.bytes);
