/**
 * OpenCode as the desktop app, the IDE extensions and `opencode web` run it: one
 * `opencode serve` started in a folder of its own, serving two projects at once through
 * `@opencode-ai/sdk` clients bound to their directories. Each project's shell command and
 * file edit land in that project (and nowhere else), Cursor is told each project's own
 * directory, `opencode run --attach … --dir` works from the server's folder, and the host's Stop (`session.abort`) cancels the Run on Cursor's side, while
 * the answer streams and while a tool runs; the next message still carries what the
 * user saw of the stopped turn.
 */
import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  createOpencodeClient,
  type OpencodeClient,
  type Part,
  type ToolPart,
} from "@opencode-ai/sdk";
import {
  type CursorEmulator,
  type ModelCallRecord,
  startCursorEmulator,
} from "../../src/testing/mod.ts";
import { isMessage } from "@bufbuild/protobuf";
import {
  type AgentClientMessage,
  AgentClientMessageSchema,
} from "../../src/gen/agent/v1/client_message_pb.ts";
import { HELD_STOP_GRACE_MS } from "../../src/provider/direct/run/held-stop.ts";
import { newSession, prompt, sessionParts } from "./support/chat.ts";
import { chatConfig } from "./support/cursor-config.ts";
import { builtPackage } from "./support/package-build.ts";
import { type OpenCodeServer, runOpenCode, startServer, within } from "./support/opencode.ts";
import { createSandbox, type Sandbox } from "./support/sandbox.ts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the model saw on the last model call of a Run. */
function modelContext(
  run: { readonly modelCalls: readonly ModelCallRecord[] } | undefined,
): string {
  return (run?.modelCalls.at(-1)?.context ?? []).join("\n");
}

/** The parts of the session's assistant messages (what the user sees of the answers). */
async function answerParts(client: OpencodeClient, session: string): Promise<Part[]> {
  const messages = await within(
    client.session.messages({ path: { id: session } }),
    15_000,
    "session.messages",
  );
  return (messages.data ?? []).flatMap((message) =>
    message.info.role === "assistant" ? message.parts : []
  );
}

/** The workspace paths a Run's request context told Cursor. */
function workspacePaths(emulator: CursorEmulator, runId: string | undefined): string[] {
  if (runId === undefined) return [];
  const entry = emulator.log({ runId, direction: "client" }).find((e) =>
    clientMessage(e.message)?.message.case === "runRequest"
  );
  const top = clientMessage(entry?.message)?.message;
  const action = top?.case === "runRequest" ? top.value.action?.action : undefined;
  return action?.case === "userMessageAction"
    ? [...(action.value.requestContext?.env?.workspacePaths ?? [])]
    : [];
}

/** A log entry's message when it is a client message. */
function clientMessage(message: unknown): AgentClientMessage | undefined {
  return isMessage(message, AgentClientMessageSchema) ? message : undefined;
}

/** Waits until `check` holds (polling), or fails saying what was awaited. */
async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms`);
    await sleep(150);
  }
}

describe("one opencode serve for two projects (real OpenCode 1.18.33)", () => {
  let emulator: CursorEmulator;
  let sandbox: Sandbox;
  let server: OpenCodeServer;
  let alpha: string;
  let beta: string;
  let alphaClient: OpencodeClient;
  let betaClient: OpencodeClient;

  before(async () => {
    const built = builtPackage();
    emulator = await startCursorEmulator({ http2: false });
    sandbox = await createSandbox({ CURSOR_API_BASE_URL: emulator.url });
    // The set-up lives in the global config: the server's own folder is neither project.
    await sandbox.writeGlobalConfig(chatConfig(built, emulator.url));
    await sandbox.writeAuth({ cursor: { type: "api", key: "crsr_e2e_server_key" } });
    alpha = join(sandbox.root, "alpha");
    beta = join(sandbox.root, "beta");
    for (const dir of [alpha, beta]) {
      await mkdir(dir);
      const git = spawnSync("git", ["init", "-q"], { cwd: dir, timeout: 10_000 });
      assert.equal(git.status, 0, git.stderr?.toString());
    }
    server = await startServer(sandbox);
    alphaClient = createOpencodeClient({ baseUrl: server.url, directory: alpha });
    betaClient = createOpencodeClient({ baseUrl: server.url, directory: beta });
  });

  after(async () => {
    await server?.stop();
    await emulator?.close();
    await sandbox?.remove();
  });

  it("runs each project's shell command and file edit in that project, at the same time", async () => {
    const turn = async (client: OpencodeClient, name: string) => {
      const session = await newSession(client);
      const answer = await prompt(
        client,
        session,
        `Work in ${name}.\n::shell pwd\n::write notes.txt written for ${name}`,
        "composer-1",
        90_000,
      );
      return { session, answer, parts: await sessionParts(client, session) };
    };
    const [a, b] = await Promise.all([turn(alphaClient, "alpha"), turn(betaClient, "beta")]);
    for (const [result, dir, name] of [[a, alpha, "alpha"], [b, beta, "beta"]] as const) {
      assert.equal(result.answer.error, undefined, JSON.stringify(result.answer.error));
      const bash = result.parts.find((part): part is ToolPart =>
        part.type === "tool" && part.tool === "bash"
      );
      assert.equal(bash?.state.status, "completed", JSON.stringify(bash?.state));
      const input = bash?.state.input as { workdir?: string } | undefined;
      assert.equal(input?.workdir, dir, "the shell ran in the project");
      const output = bash?.state.status === "completed" ? bash.state.output : "";
      assert.equal(output.split("\n")[0], dir, output);
      assert.equal(await readFile(join(dir, "notes.txt"), "utf8"), `written for ${name}`);
    }
    assert.equal(
      existsSync(join(sandbox.project, "notes.txt")),
      false,
      "nothing in the server's folder",
    );
    const runs = emulator.runs();
    const alphaRun = runs.find((run) => run.userText.includes("Work in alpha."));
    const betaRun = runs.find((run) => run.userText.includes("Work in beta."));
    assert.deepEqual(workspacePaths(emulator, alphaRun?.runId), [alpha]);
    assert.deepEqual(workspacePaths(emulator, betaRun?.runId), [beta]);
    // What each Cursor conversation holds names its own project only.
    assert.match(modelContext(alphaRun), new RegExp(`exited 0: ${alpha}`));
    assert.doesNotMatch(modelContext(alphaRun), new RegExp(beta));
    assert.match(modelContext(betaRun), new RegExp(`exited 0: ${beta}`));
    assert.doesNotMatch(modelContext(betaRun), new RegExp(alpha));
    assert.notEqual(alphaRun?.conversationId, betaRun?.conversationId);
    assert.deepEqual(emulator.violations(), []);
  });

  it("`opencode run --attach … --dir` runs the shell in that project", async () => {
    // Run from the server's folder, naming the project the way a user types it.
    const result = await runOpenCode(sandbox, [
      "run",
      "--attach",
      server.url,
      "--dir",
      "../beta",
      "--model",
      "cursor/composer-1",
      "--format",
      "json",
    ], { stdin: "Where am I?\n::shell pwd", timeoutMs: 90_000 });
    assert.equal(result.timedOut, false, result.stderr);
    const events = result.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) =>
      JSON.parse(line) as {
        type: string;
        part?: { tool?: string; state?: { status?: string; output?: string } };
      }
    );
    const bash = events.find((event) => event.type === "tool_use" && event.part?.tool === "bash");
    assert.equal(bash?.part?.state?.status, "completed", result.stdout + result.stderr);
    assert.equal(bash?.part?.state?.output?.split("\n")[0], beta);
  });

  it("Stop while the answer streams cancels the Run; the next turn holds what was shown", async () => {
    const session = await newSession(alphaClient);
    const asked = "Tell a story\n::text First half.\n::sleep 8s\n::text Second half.";
    const pending = prompt(alphaClient, session, asked, "composer-1", 60_000);
    // OpenCode stores a text part when it ends: wait for the Run, then into the pause.
    await until(
      () =>
        Promise.resolve(
          emulator.runs().some((run) =>
            run.userText.includes("Tell a story") && run.status === "running"
          ),
        ),
      "the Run streaming",
    );
    await sleep(1_500);
    await within(alphaClient.session.abort({ path: { id: session } }), 15_000, "session.abort");
    await pending;
    await emulator.idle(10_000);
    const stopped = emulator.runs().find((run) => run.userText.includes("Tell a story"));
    assert.equal(stopped?.status, "canceled");
    assert.deepEqual(stopped?.clientCancel && { ...stopped.clientCancel, at: 0 }, {
      at: 0,
      openExecs: 0,
      reason: "",
    });
    const next = await prompt(alphaClient, session, "::text Going on.");
    assert.equal(next.text, "Going on.", JSON.stringify(next.error));
    const context = modelContext(emulator.runs().at(-1));
    assert.match(context, /Tell a story/, "the interrupted request");
    assert.match(context, /First half\./, "what the user saw of it");
    assert.doesNotMatch(context, /^assistant: .*Second half/m);
    assert.deepEqual(emulator.violations(), []);
  });

  it("Stop while a tool runs cancels the held Run; the next turn holds the request and the call", async () => {
    const session = await newSession(betaClient);
    const asked = "Build it\n::shell sleep 20; echo built-42\n::text Built.";
    const held = () => emulator.runs().find((run) => run.userText.includes("Build it"));
    const pending = prompt(betaClient, session, asked, "composer-1", 60_000);
    await until(
      async () =>
        (await answerParts(betaClient, session)).some((part) =>
          part.type === "tool" && part.tool === "bash" && part.state.status === "running"
        ),
      "the shell running",
    );
    // The step has ended with the tool call: the Run is held for its result.
    await sleep(1_500);
    assert.equal(held()?.status, "running", "held while the shell runs");
    await within(betaClient.session.abort({ path: { id: session } }), 15_000, "session.abort");
    await pending;
    await until(
      () => Promise.resolve(held()?.status !== "running"),
      "the held Run ending",
      HELD_STOP_GRACE_MS + 10_000,
    );
    assert.equal(held()?.status, "canceled");
    assert.equal(held()?.clientCancel?.openExecs, 1, "cancelled with the shell still open");
    const log = await sandbox.readDebugLog();
    assert.match(log, /held Run released: .*reason=host-stopped/);
    const next = await prompt(betaClient, session, "::text Going on.");
    assert.equal(next.text, "Going on.", JSON.stringify(next.error));
    const context = modelContext(emulator.runs().at(-1));
    assert.match(context, /Build it/, "the interrupted request");
    assert.match(context, /sleep 20; echo built-42/, "the tool call");
    assert.deepEqual(emulator.violations(), []);
  });
});
