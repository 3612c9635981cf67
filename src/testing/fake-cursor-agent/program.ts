/**
 * The fake `cursor-agent` as a pure program: argv, environment, stdin and a chat
 * store in; the steps to perform (writes, pauses, exit) out. The runtime adapter
 * (`src/testing/adapters/fake-cursor-agent/main.ts`) performs them and records the
 * invocation.
 *
 * @module
 */
import { type FakeArgs, parseFakeArgs } from "./cli-args.ts";
import { renderBeats, type Step } from "./beats.ts";
import type { FakeChatStore } from "./chat-store.ts";
import { planFakeRun } from "./run-plan.ts";
import type { FakeScenario } from "./scenario.ts";
import { AUTH_REQUIRED_TEXT, FAKE_VERSION, MODELS_TEXT } from "./texts.ts";

/** What the program runs with. */
export interface FakeProgramInput {
  readonly argv: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly stdinIsTTY: boolean;
  /** Reads stdin to its end (only called when the prompt comes from stdin). */
  readonly readStdin: () => Promise<string>;
  readonly scenario: FakeScenario;
  readonly store: FakeChatStore;
  readonly newChatId: () => string;
  readonly now: () => number;
}

/** What the program decided. */
export interface FakeProgramResult {
  readonly steps: readonly Step[];
  readonly promptSource: "argv" | "stdin" | "none";
  /** The stdin text, when it was read. */
  readonly stdin?: string;
  readonly chatId?: string;
  readonly chatSource?: string;
}

const FORMATS = ["text", "json", "stream-json"];

/**
 * Runs the fake's logic.
 *
 * @param input Invocation, scenario, store and clocks.
 * @returns The steps and what to record.
 */
export async function runFakeProgram(input: FakeProgramInput): Promise<FakeProgramResult> {
  const none = (steps: Step[]): FakeProgramResult => ({ steps, promptSource: "none" });
  const parsed = parseFakeArgs(input.argv);
  if (!parsed.ok) return none(failure(parsed.error));
  const args = parsed.args;
  if (args.version) {
    return none([{ kind: "stdout", text: `${FAKE_VERSION}\n` }, { kind: "exit", code: 0 }]);
  }
  if (args.listModels || args.subcommand !== undefined) return none(subcommand(args, input));
  if (args.outputFormat !== undefined && !FORMATS.includes(args.outputFormat)) {
    return none(failure(
      `error: option '--output-format <format>' argument '${args.outputFormat}' is invalid. Allowed choices are text, json, stream-json.`,
    ));
  }
  if (!args.print && input.stdinIsTTY && args.prompt === undefined) {
    return none(failure("Error: the fake cursor-agent has no interactive mode; use --print"));
  }
  let stdin: string | undefined;
  let prompt = args.prompt;
  if (prompt === undefined && !input.stdinIsTTY) {
    stdin = await input.readStdin();
    prompt = stdin;
  }
  const plan = planFakeRun({
    args,
    prompt,
    cwd: input.cwd,
    env: input.env,
    scenario: input.scenario,
    store: input.store,
    newChatId: input.newChatId,
    now: input.now,
  });
  return {
    steps: renderBeats(plan.beats, {
      format: args.outputFormat ?? "text",
      noise: plan.noise,
      eventDelayMs: plan.eventDelayMs,
    }),
    promptSource: args.prompt !== undefined ? "argv" : stdin !== undefined ? "stdin" : "none",
    ...(stdin === undefined ? {} : { stdin }),
    ...(plan.chatId === undefined ? {} : { chatId: plan.chatId }),
    ...(plan.chatSource === undefined ? {} : { chatSource: plan.chatSource }),
  };
}

function subcommand(args: FakeArgs, input: FakeProgramInput): Step[] {
  const loggedIn = input.scenario.auth !== "none" || (input.env["CURSOR_API_KEY"] ?? "") !== "";
  const print = (
    text: string,
  ): Step[] => [{ kind: "stdout", text: `${text}\n` }, { kind: "exit", code: 0 }];
  if (args.listModels) return print(MODELS_TEXT);
  switch (args.subcommand) {
    case "status":
    case "whoami":
      return print(loggedIn ? "✓ Logged in as test@example.com" : "Not logged in");
    case "models":
      return loggedIn ? print(MODELS_TEXT) : failure(AUTH_REQUIRED_TEXT);
    case "create-chat": {
      const id = input.newChatId();
      const now = input.now();
      input.store.save({
        id,
        workspace: args.workspace ?? input.cwd,
        prompts: [],
        createdAtMs: now,
        updatedAtMs: now,
      });
      return print(id);
    }
    case "ls":
      return input.stdinIsTTY
        ? print("No chats yet")
        : failure("Error: Raw mode is not supported on the current process.stdin");
    case "about":
      return print(
        `CLI Version   ${FAKE_VERSION}\nModel         Auto\nUser Email    test@example.com`,
      );
    case "login":
      return print("Already logged in");
    case "logout":
      return print("Logged out");
    default:
      return print("Already up to date");
  }
}

function failure(text: string): Step[] {
  return [{ kind: "stderr", text: `${text}\n` }, { kind: "exit", code: 1 }];
}
