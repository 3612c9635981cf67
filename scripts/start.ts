/**
 * The main job: one chat turn through the provider, streamed as it arrives. The answer
 * goes to stdout; thinking, tool activity, usage and notes go to stderr, set apart.
 * Against Cursor when `CURSOR_API_KEY` is set, otherwise against the built-in Cursor
 * emulator (started on loopback for this run). `--help` lists the options.
 *
 * @module
 */
import process from "node:process";
import { stepCountIs, streamText } from "ai";
import { createCursor } from "../node.ts";
import { startCursorEmulator } from "../src/testing/mod.ts";
import { parseCommandLine } from "../src/adapters/node/commands/command-line.ts";
import { machineId } from "../src/adapters/node/machine.ts";
import { exchangeApiKey } from "../src/auth/api-key-exchange.ts";
import { fetchAvailableModels } from "../src/catalog/available-models.ts";
import { createHostWorkspace, type HostWorkspace } from "./start/host-tools.ts";
import {
  describeUsage,
  errorText,
  type Output,
  type StreamPart,
  TurnRenderer,
} from "./start/render.ts";

const CURSOR_API = "https://api2.cursor.sh";
const EMULATOR_KEY = "crsr_local_emulator_key";
const TOOL_DIRECTIVE = /(^|\s)::(shell|read|write|ls|grep|glob|delete|mcp|subagent)\b/;

const command = parseCommandLine({
  invocation: "npm start --",
  summary: "One chat turn through the provider, streamed. Without CURSOR_API_KEY it runs " +
    "against the built-in Cursor emulator; with CURSOR_API_KEY=crsr_… it talks to Cursor.",
  positionals: "prompt",
  options: {
    model: { type: "string", value: "<id>", description: "the model (an unknown id lists them)" },
    transport: {
      type: "string",
      value: "sse|http2",
      default: "sse",
      description: "RunSSE + BidiAppend over fetch, or the HTTP/2 bidi Run",
    },
    tools: {
      type: "string",
      value: "read|write",
      description: "offer real tools in a temporary workspace: read/list/grep/glob; " +
        "write adds write and bash (bare --tools means read)",
    },
    models: { type: "boolean", description: "list the models and exit" },
  },
  examples: [
    ["npm start", "a greeting through the emulator"],
    ['npm start -- "::think Let me see\\n::text Hi"', "thinking, then an answer"],
    ["npm start -- --tools", "a complete agent turn: list, read and grep a demo workspace"],
    ['npm start -- --tools=write "::shell ls -la"', "let the agent run a shell command"],
    ["npm start -- --transport http2 --model gpt-5", "HTTP/2 Run and another model"],
    ["CURSOR_API_KEY=crsr_… npm start -- --models", "your Cursor account's models"],
    ["CURSOR_PROVIDER_DEBUG=1 npm start", "also write the provider's debug log"],
  ],
  notes: [
    "Against the emulator, prompts with :: directives (::think, ::read, ::shell, ::fault …) " +
    'script the model; the table is in docs/emulator.md, section "Directives".',
  ],
}, Deno.args.map((arg) => arg === "--tools" ? "--tools=read" : arg));

if (command.kind === "help") {
  console.log(command.text);
  Deno.exit(0);
}
if (command.kind === "error") fail(command.message, 2);
const { values, positionals } = command as Extract<typeof command, { kind: "run" }>;
const text = (name: string) => typeof values[name] === "string" ? values[name] : undefined;
const requestedModel = text("model");
const transport = values.transport === "http2" ? "http2" : "sse";
if (values.transport !== "sse" && values.transport !== "http2") {
  fail(`Unknown transport ${JSON.stringify(values.transport)}: use --transport sse or http2`, 2);
}
const toolAccess = text("tools");
if (toolAccess !== undefined && toolAccess !== "read" && toolAccess !== "write") {
  fail(`Unknown tool access ${JSON.stringify(toolAccess)}: use --tools or --tools=write`, 2);
}
const apiKey = process.env.CURSOR_API_KEY;
const defaultPrompt = toolAccess === undefined
  ? "Hello! In one sentence, what can you do?"
  : "::ls .\n::read notes.txt\n::grep TODO .";
const prompt = positionals.join(" ").trim().replaceAll("\\n", "\n") || defaultPrompt;

const encoder = new TextEncoder();
const colour = Deno.stderr.isTerminal() && process.env.NO_COLOR === undefined;
const output: Output = {
  answer: (text) => void Deno.stdout.writeSync(encoder.encode(text)),
  note: (text) => void Deno.stderr.writeSync(encoder.encode(text)),
  dim: (text) => colour ? `\x1b[2m${text}\x1b[22m` : text,
};

function fail(message: string, code = 1): never {
  console.error(`Error: ${message}`);
  Deno.exit(code);
}

/** Without the endpoint variables, so the emulator run is not redirected elsewhere. */
function emulatorEnvironment(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const name of ["CURSOR_API_BASE_URL", "CURSOR_AGENT_BASE_URL", "CURSOR_API_KEY"]) {
    delete env[name];
  }
  return env;
}

const emulator = apiKey ? undefined : await startCursorEmulator();
const workspace: HostWorkspace | undefined = toolAccess === undefined
  ? undefined
  : await createHostWorkspace(toolAccess);
Deno.addSignalListener("SIGINT", async () => {
  await workspace?.remove();
  Deno.exit(130);
});
try {
  const apiBaseURL = emulator?.url ?? process.env.CURSOR_API_BASE_URL ?? CURSOR_API;
  if (values.models) {
    await printModels(apiBaseURL);
    Deno.exit(0);
  }
  const workspaceSetting = workspace ? { workspace: { workspaceRoot: workspace.root } } : {};
  const agentURL = transport === "http2" && emulator?.http2Url ? emulator.http2Url : undefined;
  const cursor = emulator
    ? createCursor({
      apiKey: EMULATOR_KEY,
      apiBaseURL: emulator.url,
      allowLoopback: true,
      transport,
      ...(agentURL ? { agentBaseURL: agentURL } : {}),
      env: emulatorEnvironment(),
      ...workspaceSetting,
    })
    : createCursor({ apiKey, transport, ...workspaceSetting });
  const model = requestedModel ?? (emulator ? "claude-4.5-sonnet" : "auto");
  banner(model, apiBaseURL, agentURL);
  const result = streamText({
    model: cursor(model),
    prompt,
    maxRetries: 1,
    ...(workspace ? { tools: workspace.tools, stopWhen: stepCountIs(12) } : {}),
    onError: () => {},
  });
  const renderer = new TurnRenderer(output);
  let failure: unknown;
  for await (const part of result.fullStream) {
    if (part.type === "error") failure ??= part.error;
    else renderer.part(part as StreamPart);
  }
  renderer.finish();
  if (failure !== undefined) await explainFailure(failure, apiBaseURL);
  // Request usage (the library default) sums over the steps: the tool steps carry zero.
  const usage = await result.totalUsage;
  const contextTokens = (await result.providerMetadata)?.cursor?.contextTokens;
  output.note("\n");
  const occupancy = typeof contextTokens === "number" ? contextTokens : undefined;
  for (const line of describeUsage(usage, occupancy)) output.note(`${line}\n`);
  if (emulator && emulator.violations().length > 0) {
    fail(`The emulator recorded protocol violations: ${JSON.stringify(emulator.violations())}`);
  }
} finally {
  await workspace?.remove();
  await emulator?.close();
}

function banner(model: string, apiBaseURL: string, agentURL: string | undefined): void {
  const where = transport === "http2"
    ? `HTTP/2 bidi Run at ${agentURL ?? "the agent host from GetServerConfig"}`
    : `RunSSE + BidiAppend at ${emulator ? apiBaseURL : "the agent host from GetServerConfig"}`;
  output.note(
    emulator
      ? `No CURSOR_API_KEY set: using the built-in Cursor emulator at ${apiBaseURL}\n`
      : `Using Cursor at ${apiBaseURL} with CURSOR_API_KEY\n`,
  );
  output.note(`model ${model}, transport ${transport}: ${where}\n`);
  if (workspace) {
    const offered = Object.keys(workspace.tools).join(", ");
    output.note(`tools offered: ${offered}, inside ${workspace.root}\n`);
  } else if (TOOL_DIRECTIVE.test(prompt)) {
    output.note(
      "note: this run offers no tools, so Cursor's tool requests are refused; " +
        "add --tools (read-only) or --tools=write\n",
    );
  }
  if (emulator && !prompt.includes("::")) {
    output.note(output.dim(
      'tip: ::directives script the emulator (e.g. "::think hm\\n::text Hi"); ' +
        'see docs/emulator.md, "Directives"\n',
    ));
  }
  output.note("\n");
}

async function accessToken(apiBaseURL: string): Promise<string> {
  if (emulator) return (await emulator.auth.issueTokens()).accessToken;
  return (await exchangeApiKey(apiKey ?? "", { apiBaseURL, fetch })).accessToken;
}

async function modelIds(apiBaseURL: string): Promise<string[]> {
  const models = await fetchAvailableModels({
    apiBaseURL,
    accessToken: await accessToken(apiBaseURL),
    fetch,
    machineId: await machineId(),
  });
  return models.map((model) => model.id);
}

async function printModels(apiBaseURL: string): Promise<void> {
  for (const id of await modelIds(apiBaseURL)) console.log(id);
}

async function explainFailure(error: unknown, apiBaseURL: string): Promise<never> {
  const code = (error as { data?: { code?: unknown } }).data?.code;
  if (code === "bad_model") {
    const ids = await modelIds(apiBaseURL).catch(() => undefined);
    const list = ids === undefined ? "run npm start -- --models" : `use one of: ${ids.join(", ")}`;
    fail(`Unknown model ${JSON.stringify(requestedModel)}: ${list}`);
  }
  const fixes: Record<string, string> = {
    unauthenticated: "set CURSOR_API_KEY to a valid crsr_ key (cursor.com/settings), " +
      "or run npm run doctor",
    network: "check the network connection; npm run doctor checks the Cursor hosts",
    timeout: "Cursor did not answer in time; try again, or npm run doctor",
    quota: "the account's quota is used up for now",
  };
  const fix = typeof code === "string" ? fixes[code] : undefined;
  fail(`${errorText(error)}${fix ? ` (fix: ${fix})` : ""}`);
}
