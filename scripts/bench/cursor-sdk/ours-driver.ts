/**
 * The `cursor-sdk` bench's driver for our own client: a Node program that imports the built
 * npm package (`node.js` of a `scripts/build.ts` output, as an npm app imports the package
 * root on Node), then, timed from just before `createCursor`, streams a few turns of one
 * conversation with `doStream` (each turn's prompt carries the history, one `sessionId`), and
 * prints a `RESULT {json}` line a turn with `performance.now()` stamps: when `createCursor`
 * was called, when each turn's call started and when its first text delta came.
 *
 * @module
 */
import { resolve } from "node:path";
import { type DriverPlace, type DriverRun, nodeDriver } from "../../lib/cursor-sdk-driver.ts";

const DRIVER = String.raw`
const [entryUrl, planJson] = process.argv.slice(2);
const { createCursor } = await import(entryUrl);
const plan = JSON.parse(planJson);
const out = (value) => process.stdout.write("RESULT " + JSON.stringify(value) + "\n");
try {
  const startedAt = performance.now();
  const cursor = createCursor({ apiKey: plan.apiKey, apiBaseURL: plan.apiBaseURL, allowLoopback: true });
  out({ op: "create", startedAt });
  const model = cursor(plan.model);
  const prompt = [];
  for (const text of plan.texts) {
    prompt.push({ role: "user", content: [{ type: "text", text }] });
    const sentAt = performance.now();
    const { stream } = await model.doStream({
      prompt, providerOptions: { cursor: { sessionId: plan.sessionId } } });
    let reply = "";
    let firstTextAt = null;
    for await (const part of stream) {
      if (part.type === "text-delta") {
        if (firstTextAt === null && part.delta) firstTextAt = performance.now();
        reply += part.delta;
      }
      if (part.type === "error") throw part.error;
    }
    prompt.push({ role: "assistant", content: [{ type: "text", text: reply }] });
    out({ op: "send", text: reply, status: "finished", startedAt: sentAt, firstTextAt });
  }
  setTimeout(() => process.exit(0), 200).unref();
} catch (error) {
  out({ op: "error", error: String(error?.message ?? error) });
  process.exit(3);
}
`;

/** One conversation for our driver: where to, with what key and model, the user turns. */
export interface OursPlan {
  readonly apiBaseURL: string;
  readonly apiKey: string;
  readonly model: string;
  readonly sessionId: string;
  readonly texts: readonly string[];
}

/**
 * Writes our driver into `scratch` and returns a function that runs one plan in a fresh
 * process of `nodeBin`, importing `<build>/node.js`.
 */
export function oursDriver(
  options: DriverPlace & { readonly nodeBin: string; readonly build: string },
): (plan: OursPlan) => Promise<DriverRun> {
  const entryUrl = new URL(`file://${resolve(options.build, "node.js")}`).href;
  return nodeDriver({
    ...options,
    name: "ours-driver.mjs",
    source: DRIVER,
    leadingArgs: [entryUrl],
  });
}
