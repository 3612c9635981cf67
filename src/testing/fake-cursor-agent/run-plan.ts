/**
 * Plans one print-mode run of the fake: the gates (auth, trust), the prompt, which
 * chat the run belongs to (fresh, resumed, or one of the unknown-id behaviours),
 * and the beats of the run as the directives shape them. The reply proves
 * continuity: it names the chat, counts the prompts the chat has received and
 * repeats the last `codeword <word>` found anywhere in the chat.
 *
 * @module
 */
import type { FakeArgs } from "./cli-args.ts";
import type { Beat } from "./beats.ts";
import type { FakeChat, FakeChatStore } from "./chat-store.ts";
import { newestUserText, readDirectives } from "../directives/directive-language.ts";
import type { FakeScenario } from "./scenario.ts";
import { composeRun } from "./compose-run.ts";
import { AUTH_REQUIRED_TEXT, chatNotFoundText, UNTRUSTED_TEXT } from "./texts.ts";

/** Everything a run is planned from. */
export interface FakeRunInput {
  readonly args: FakeArgs;
  /** The prompt (positional or stdin), if any. */
  readonly prompt: string | undefined;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly scenario: FakeScenario;
  readonly store: FakeChatStore;
  readonly newChatId: () => string;
  readonly now: () => number;
}

/** The planned run. */
export interface FakeRunPlan {
  readonly beats: readonly Beat[];
  /** The chat the run used, if it got that far. */
  readonly chatId?: string;
  /** How the chat was chosen. */
  readonly chatSource?:
    | "fresh"
    | "resumed"
    | "latest"
    | "unknown-new"
    | "unknown-same"
    | "unknown-error";
  /** Whether the directives asked for noisy output. */
  readonly noise: boolean;
  /** Pause between events for this run. */
  readonly eventDelayMs: number;
}

interface ChatChoice {
  readonly chat?: FakeChat;
  readonly id: string;
  readonly source: NonNullable<FakeRunPlan["chatSource"]>;
  readonly errorText?: string;
  readonly errorAfterInit?: boolean;
}

/**
 * Plans a print-mode run.
 *
 * @param input Arguments, prompt, scenario, store and clocks.
 * @returns The beats and the chat.
 */
export function planFakeRun(input: FakeRunInput): FakeRunPlan {
  const { args, scenario } = input;
  const fail = (text: string): FakeRunPlan => ({
    beats: [{ kind: "stderr", text: `${text}\n` }, { kind: "exit", code: 1 }],
    noise: false,
    eventDelayMs: 0,
  });
  const hasKey = (input.env["CURSOR_API_KEY"] ?? "") !== "" || args.apiKey !== undefined;
  if (scenario.auth === "none" && !hasKey) return fail(AUTH_REQUIRED_TEXT);
  if (scenario.requireTrust && !args.trust && !args.force) return fail(UNTRUSTED_TEXT);
  const prompt = input.prompt ?? "";
  if (prompt.trim() === "") {
    return fail("Error: No prompt provided. Pass a prompt as an argument or on stdin.");
  }

  const workspace = args.workspace ?? input.cwd;
  const choice = chooseChat(input, workspace);
  const focus = newestUserText(prompt);
  const directives = readDirectives(`${focus.text}\n${scenario.directives}`);
  const names = new Set(directives.map((directive) => directive.name));
  const slow = directives.find((directive) => directive.name === "slow");
  const eventDelayMs = slow ? Number(slow.argument) || 0 : scenario.eventDelayMs;
  const base = {
    chatId: choice.id,
    chatSource: choice.source,
    noise: names.has("noise"),
    eventDelayMs,
  };
  if (choice.errorText !== undefined && !choice.errorAfterInit) {
    return { ...fail(choice.errorText), ...base };
  }

  const previous = choice.chat?.prompts ?? [];
  const now = input.now();
  const chat: FakeChat = {
    id: choice.id,
    workspace,
    prompts: [...previous, prompt],
    createdAtMs: choice.chat?.createdAtMs ?? now,
    updatedAtMs: now,
  };
  if (choice.errorText === undefined) input.store.save(chat);
  const beats = composeRun({
    args,
    chat,
    previousPrompts: previous,
    prompt,
    focus,
    directives,
    scenario,
    cwd: workspace,
    now: input.now,
    ...(choice.errorText === undefined ? {} : { failAfterInit: choice.errorText }),
  });
  return { beats, ...base };
}

function chooseChat(input: FakeRunInput, workspace: string): ChatChoice {
  const { args, scenario, store } = input;
  const fresh = (): ChatChoice => ({ id: scenario.chatId ?? input.newChatId(), source: "fresh" });
  if (args.resume === true || (args.resume === undefined && args.continueLatest)) {
    const latest = scenario.forgetChats ? undefined : store.latest(workspace);
    return latest ? { chat: latest, id: latest.id, source: "latest" } : fresh();
  }
  if (args.resume === undefined) return fresh();
  const requested = args.resume;
  const known = scenario.forgetChats ? undefined : store.load(workspace, requested);
  if (known) return { chat: known, id: known.id, source: "resumed" };
  const errorText = scenario.resumeErrorText?.replaceAll("<id>", requested) ??
    chatNotFoundText(requested);
  switch (scenario.unknownResume) {
    case "silent-new":
      return { id: input.newChatId(), source: "unknown-new" };
    case "silent-same":
      return { id: requested, source: "unknown-same" };
    case "error":
      return { id: requested, source: "unknown-error", errorText };
    case "error-after-init":
      return { id: requested, source: "unknown-error", errorText, errorAfterInit: true };
  }
}
