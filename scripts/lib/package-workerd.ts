/**
 * The packaging proof for Workers: a Worker app written against the installed npm package
 * (the root entry and `./stores/cloudflare`), bundled as wrangler does (esbuild, `workerd`
 * and `worker` conditions, every dependency inlined), runs in real workerd through the
 * repository's miniflare: two Workers bind one Durable Object class, turn 1 lands on one,
 * turn 2 on the other, and the emulator's record shows turn 2 continued warm.
 *
 * @module
 */

/** The esbuild arguments that bundle `worker.mjs` in `dir` into `worker.bundle.mjs`. */
export function workerBundleArgs(): string[] {
  return [
    "worker.mjs",
    "--bundle",
    "--format=esm",
    "--platform=browser",
    "--conditions=workerd,worker",
    "--target=es2022",
    "--log-level=warning",
    "--outfile=worker.bundle.mjs",
  ];
}

/**
 * Writes the Worker (`worker.mjs`) and the program that runs it (`workerd.mjs`).
 *
 * @param dir The scratch project with the package installed.
 * @param root The repository (its `node_modules` has miniflare).
 */
export async function writeWorkerdProof(dir: string, root: string): Promise<void> {
  await Deno.writeTextFile(`${dir}/worker.mjs`, WORKER);
  const miniflare = new URL(`file://${root}/node_modules/miniflare/dist/src/index.js`).href;
  await Deno.writeTextFile(`${dir}/workerd.mjs`, RUNNER.replace("MINIFLARE_URL", miniflare));
}

const WORKER = `import { createCursor } from "ai-sdk-provider-cursor";
import {
  createDurableObjectSnapshotStore,
  CursorSnapshotObject,
} from "ai-sdk-provider-cursor/stores/cloudflare";

export { CursorSnapshotObject };

export default {
  async fetch(request, env) {
    const { sessionId, messages } = await request.json();
    const lines = [];
    const cursor = createCursor({
      apiKey: "crsr_package_smoke_key",
      apiBaseURL: env.CURSOR_API_BASE_URL,
      allowLoopback: true,
      env: {},
      debug: { enabled: true, line: (text) => lines.push(text) },
      conversationSnapshots: createDurableObjectSnapshotStore(env.CURSOR_SNAPSHOTS),
    });
    const prompt = messages.map(({ role, text }) => ({ role, content: [{ type: "text", text }] }));
    try {
      const result = await cursor("gpt-5").doGenerate({
        prompt,
        providerOptions: { cursor: { sessionId } },
      });
      const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      return Response.json({ text, lines });
    } catch (error) {
      return Response.json({ error: String(error), lines }, { status: 500 });
    }
  },
};
`;

const RUNNER = `import { readFileSync } from "node:fs";
import { Miniflare } from "MINIFLARE_URL";
import { startCursorEmulator } from "ai-sdk-provider-cursor/testing";

const emulator = await startCursorEmulator();
const script = readFileSync("worker.bundle.mjs", "utf8");
const app = (name, scriptName) => ({
  name,
  modules: true,
  script,
  compatibilityDate: "2025-09-01",
  bindings: { CURSOR_API_BASE_URL: emulator.url },
  durableObjects: {
    CURSOR_SNAPSHOTS: { className: "CursorSnapshotObject", useSQLite: true, ...(scriptName ? { scriptName } : {}) },
  },
});
const miniflare = new Miniflare({ workers: [app("app-a"), app("app-b", "app-a")] });
const guard = setTimeout(() => {
  console.error("workerd proof exceeded 120 s");
  process.exit(1);
}, 120_000);
try {
  const turn = async (worker, body) => {
    const fetcher = await miniflare.getWorker(worker);
    const response = await fetcher.fetch("http://app.test/", { method: "POST", body: JSON.stringify(body) });
    const answer = await response.json();
    if (response.status !== 200) throw new Error(answer.error + "\\n" + answer.lines.join("\\n"));
    return answer;
  };
  const u1 = { role: "user", text: "Remember the word kumquat." };
  const first = await turn("app-a", { sessionId: "ses_package", messages: [u1] });
  await turn("app-b", {
    sessionId: "ses_package",
    messages: [u1, { role: "assistant", text: first.text }, { role: "user", text: "Which word?" }],
  });
  const [run1, run2] = emulator.runs();
  if (run2?.continuity !== "warm" || run2.turn !== 2 || run2.conversationId !== run1?.conversationId) {
    throw new Error("turn 2 did not continue warm: " + JSON.stringify(run2));
  }
  if (emulator.violations().length > 0) throw new Error("protocol violations");
  console.log("turn 2 on another Worker continued warm from turn 1's checkpoint");
} finally {
  clearTimeout(guard);
  await miniflare.dispose();
  await emulator.close();
}
`;
