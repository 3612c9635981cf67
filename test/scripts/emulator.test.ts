/**
 * `npm run emulator` as its own process: help, one-line mistakes, the OpenCode set-up it
 * prints, and one line per request.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import {
  formatRequestLine,
  loggedHandler,
  type RequestLine,
} from "../../scripts/emulator/request-log.ts";

function emulatorScript(args: string[]) {
  return spawnSync("deno", ["run", "-A", "scripts/emulator.ts", ...args], {
    encoding: "utf8",
    timeout: 60_000,
  });
}

/** Starts the emulator script and resolves once it is ready, with its output so far. */
function serve(args: string[]) {
  const child = spawn("deno", ["run", "-A", "scripts/emulator.ts", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const killer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => void (output += chunk));
  const waitFor = (pattern: RegExp) =>
    new Promise<string>((resolve, reject) => {
      const look = () => {
        if (pattern.test(output)) return resolve(output);
        if (child.exitCode !== null) return reject(new Error(`exited: ${output}`));
        setTimeout(look, 50);
      };
      look();
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once("exit", () => {
        clearTimeout(killer);
        resolve();
      });
      child.kill("SIGTERM");
    });
  return { waitFor, stop, output: () => output };
}

/** One unary request the emulator refuses (no token): a request the log must account for. */
async function askForModelsWithoutToken(url: string): Promise<void> {
  const response = await fetch(`${url}/aiserver.v1.AiService/AvailableModels`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });
  assert.equal(response.status, 401);
  await response.body?.cancel();
}

describe("npm run emulator", () => {
  it("--help lists the options with examples; an unknown option is one line", () => {
    const help = emulatorScript(["--help"]);
    assert.equal(help.status, 0);
    assert.match(help.stdout, /^Usage: npm run emulator -- \[options\]\n/);
    assert.match(help.stdout, /--quiet +no per-request lines/);
    assert.match(help.stdout, /Examples:\n/);
    const wrong = emulatorScript(["--prot", "1"]);
    assert.equal(wrong.status, 2);
    assert.equal(
      wrong.stderr,
      'Unknown option --prot: run "npm run emulator -- --help" for the options\n',
    );
  });

  it("prints an OpenCode set-up for itself and one line per request", async () => {
    const server = serve([]);
    try {
      const ready = await server.waitFor(/emulator: ready/);
      const url = /emulator: url=(\S+)/.exec(ready)?.[1] ?? "";
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(ready.includes(`"apiBaseURL": "${url}"`), ready);
      assert.match(ready, /"allowLoopback": true/);
      assert.match(ready, /"plugin": \[\n\s+"file:\/\/\/.*\/npm\/plugin\/mod\.js"/);
      assert.match(ready, /"npm": "file:\/\/\/.*\/npm\/node\.js"/);
      assert.ok(ready.includes(`export CURSOR_API_BASE_URL=${url} CURSOR_WEBSITE_URL=${url}`));
      await askForModelsWithoutToken(url);
      const logged = await server.waitFor(/AvailableModels 401/);
      assert.match(
        logged,
        /\n\d\d:\d\d:\d\d\.\d{3} POST \/aiserver\.v1\.AiService\/AvailableModels 401 \d+ ms\n/,
      );
    } finally {
      await server.stop();
    }
  });

  it("--quiet serves requests without a line for each", async () => {
    const server = serve(["--quiet"]);
    try {
      const ready = await server.waitFor(/emulator: ready/);
      const url = /emulator: url=(\S+)/.exec(ready)?.[1] ?? "";
      for (let i = 0; i < 3; i++) {
        await askForModelsWithoutToken(url);
      }
      // a line would have been written before the response; give stdout a moment anyway
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.doesNotMatch(server.output(), /AvailableModels/);
      assert.doesNotMatch(ready, /one line per request follows/);
    } finally {
      await server.stop();
    }
  });
});

describe("request log", () => {
  it("reports a streamed response when its body has been sent, and a cancelled one as such", async () => {
    const lines: RequestLine[] = [];
    let clock = 0;
    const handler = loggedHandler(
      () => Promise.resolve(new Response(new Blob(["abc"]).stream(), { status: 200 })),
      (line) => lines.push(line),
      () => clock++,
    );
    const response = await handler(
      new Request("http://x/agent.v1.AgentService/RunSSE", { method: "POST" }),
    );
    assert.equal(lines.length, 0, "nothing is reported before the body is sent");
    assert.equal(await response.text(), "abc");
    assert.deepEqual(lines.map(formatRequestLine), ["POST /agent.v1.AgentService/RunSSE 200 1 ms"]);
    const cancelled = await handler(
      new Request("http://x/agent.v1.AgentService/RunSSE", { method: "POST" }),
    );
    await cancelled.body?.cancel();
    assert.match(
      formatRequestLine(lines[1] ?? { method: "", path: "", status: "", ms: 0 }),
      / 200 \d+ ms \(closed by the client\)$/,
    );
  });
});
