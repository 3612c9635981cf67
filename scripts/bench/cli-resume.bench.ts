/**
 * Measures what session resume saves on the cursor-agent backend: the same scripted
 * ten-turn conversation (a system prompt and tool list of realistic size, a tool
 * round trip on turn 4) runs twice against the fake `cursor-agent`, once with resume
 * on and once off, and the bytes written to the CLI's stdin are compared.
 *
 * Usage: `deno run -A scripts/bench/cli-resume.bench.ts`
 *
 * Prints `cli-resume: <metric>=<value>` lines; the run is capped at 60 seconds.
 *
 * @module
 */
import { readFile, rm } from "node:fs/promises";
import { jsonSchema, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { createNodeProcessRunner } from "../../src/adapters/node/process/process-runner.ts";
import { createResumeCache } from "../../src/cli/resume-cache.ts";
import { createCliLanguageModel } from "../../src/provider/cli/cli-backend.ts";
import { installFakeCursorAgent } from "../../src/testing/adapters/fake-cursor-agent/install.ts";

const TIME_LIMIT_MS = 60_000;
const TURNS = 10;
const TOOL_TURN = 4;

const deadline = setTimeout(() => {
  console.error(`cli-resume: aborted after ${TIME_LIMIT_MS} ms`);
  Deno.exit(1);
}, TIME_LIMIT_MS);

const SYSTEM = [
  "You are an expert coding agent working inside the user's repository.",
  "Follow the repository's conventions, keep changes small and explain what you did.",
  ...Array.from(
    { length: 40 },
    (_, index) => `Rule ${index + 1}: keep behaviour observable and tests meaningful.`,
  ),
].join("\n");

const tools = Object.fromEntries(
  ["bash", "read", "edit", "write", "grep", "glob", "todowrite", "webfetch"].map((name) => [
    name,
    tool({
      description: `The ${name} tool. ${
        "It has a long description, as host tools do. ".repeat(20)
      }`,
      inputSchema: jsonSchema<Record<string, unknown>>({
        type: "object",
        properties: {
          command: { type: "string" },
          description: { type: "string" },
          filePath: { type: "string" },
        },
      }),
      execute: () => Promise.resolve("All 42 tests passed."),
    }),
  ]),
);

async function runSession(resume: boolean): Promise<{ turnBytes: number[]; ms: number }> {
  const dir = await Deno.makeTempDir({ prefix: "cli-resume-bench-" });
  try {
    const fake = await installFakeCursorAgent(`${dir}/bin`);
    await Deno.mkdir(`${dir}/workspace`);
    const record = `${dir}/record.jsonl`;
    const env = {
      ...Deno.env.toObject(),
      FAKE_CURSOR_AGENT_RECORD: record,
      FAKE_CURSOR_AGENT_STATE_DIR: `${dir}/state`,
      FAKE_CURSOR_AGENT_TOOL_DELAY_MS: "200",
      CURSOR_ACP_SESSION_RESUME: resume ? "1" : "0",
    };
    const model = createCliLanguageModel("auto", {
      runner: createNodeProcessRunner(),
      binaryPath: fake.binaryPath,
      workspace: `${dir}/workspace`,
      env,
      resumeCache: createResumeCache(),
    });
    const history: ModelMessage[] = [];
    const started = performance.now();
    for (let turn = 1; turn <= TURNS; turn++) {
      const directive = turn === TOOL_TURN ? "\n::shell npm test" : "";
      history.push({
        role: "user",
        content: `Turn ${turn}: please continue with step ${turn} of the plan.${directive}`,
      });
      const result = streamText({
        model,
        system: SYSTEM,
        messages: history,
        tools,
        stopWhen: stepCountIs(3),
      });
      history.push(...(await result.response).messages);
    }
    const ms = performance.now() - started;
    const starts = (await readFile(record, "utf8")).split("\n").filter((line) =>
      line.includes('"event":"start"')
    )
      .map((line) => JSON.parse(line) as { stdin: string | null });
    return {
      turnBytes: starts.map((start) => new TextEncoder().encode(start.stdin ?? "").length),
      ms,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const withResume = await runSession(true);
const without = await runSession(false);
const last = (values: number[]) => values.at(-1) ?? 0;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const ratio = last(withResume.turnBytes) / Math.max(1, last(without.turnBytes));

console.log(`cli-resume: runs_per_session=${withResume.turnBytes.length}`);
console.log(`cli-resume: turn10_prompt_bytes_resume=${last(withResume.turnBytes)}`);
console.log(`cli-resume: turn10_prompt_bytes_full=${last(without.turnBytes)}`);
console.log(`cli-resume: turn10_ratio=${ratio.toFixed(4)}`);
console.log(`cli-resume: session_prompt_bytes_resume=${sum(withResume.turnBytes)}`);
console.log(`cli-resume: session_prompt_bytes_full=${sum(without.turnBytes)}`);
console.log(
  `cli-resume: session_ratio=${
    (sum(withResume.turnBytes) / Math.max(1, sum(without.turnBytes))).toFixed(4)
  }`,
);
console.log(`cli-resume: session_ms_resume=${withResume.ms.toFixed(0)}`);
console.log(`cli-resume: session_ms_full=${without.ms.toFixed(0)}`);
clearTimeout(deadline);
if (!(ratio < 1)) {
  console.error("cli-resume: resume did not reduce the prompt size");
  Deno.exit(1);
}
