/**
 * The emulator of `scale-out.bench.ts` in its own Deno process: loopback, no auth, SSE
 * (no HTTP/2 server), behind its counting network (no delay) so the bench reads the bytes
 * every provider instance uploaded. Commands on stdin, one a line, each answered with one
 * line on stdout:
 *
 * - `network` → `emulator-host: network bytes_up=N connections=N`
 * - `dump <file>` → writes `{ runs, violations }` (the Run records) as JSON to the file,
 *   then `emulator-host: dumped`
 * - `clear` → forgets the records, the log and the server's blobs, then `emulator-host: cleared`
 *
 * It exits by itself after `BENCH_LIFETIME_MS` (default 15 minutes).
 *
 * @module
 */
import { startCursorEmulator } from "../../../src/testing/mod.ts";

const lifetimeMs = Number(Deno.env.get("BENCH_LIFETIME_MS") ?? 15 * 60 * 1000);
const lifetime = setTimeout(() => Deno.exit(3), lifetimeMs);
const emulator = await startCursorEmulator({
  auth: { required: false },
  http2: false,
  runLimit: 1_000_000,
  log: false,
  network: {},
});
console.log(`emulator-host: url=${emulator.url}`);

const encoder = new TextEncoder();
async function answer(line: string): Promise<void> {
  const [command, argument] = line.trim().split(/\s+/, 2);
  if (command === "network") {
    const stats = emulator.network();
    console.log(
      `emulator-host: network bytes_up=${stats?.bytesUp ?? 0} connections=${
        stats?.connections ?? 0
      }`,
    );
  } else if (command === "dump" && argument !== undefined) {
    const records = { runs: emulator.runs(), violations: emulator.violations() };
    await Deno.writeFile(argument, encoder.encode(JSON.stringify(records)));
    console.log("emulator-host: dumped");
  } else if (command === "clear") {
    emulator.clear();
    emulator.forgetServerBlobs();
    console.log("emulator-host: cleared");
  } else if (command !== undefined && command !== "") {
    console.log(`emulator-host: unknown command ${JSON.stringify(line)}`);
  }
}

let pending = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  pending += chunk;
  const lines = pending.split("\n");
  pending = lines.pop() ?? "";
  for (const line of lines) await answer(line);
}
clearTimeout(lifetime);
await emulator.close();
Deno.exit(0);
