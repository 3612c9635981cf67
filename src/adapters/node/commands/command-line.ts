/**
 * Command-line parsing for the project's commands (`npm start`, `npm run emulator`,
 * `npm run bench`, `doctor`): `--help` with usage, options and examples, and one
 * readable line for a mistake (the option, and where the help is) instead of a stack.
 *
 * @module
 */
import { parseArgs } from "node:util";

/** One option of a command. */
export interface CommandOption {
  /** `string` takes a value, `boolean` is a flag. */
  readonly type: "string" | "boolean";
  /** What it does, for `--help`. */
  readonly description: string;
  /** Placeholder shown after a string option, e.g. `<id>`. */
  readonly value?: string;
  /** Default value. */
  readonly default?: string | boolean;
}

/** A command's description for {@link parseCommandLine}. */
export interface CommandSpec {
  /** How a user invokes it, e.g. `npm start --`. */
  readonly invocation: string;
  /** One or two sentences on what it does. */
  readonly summary: string;
  /** Positional arguments shown in the usage line, e.g. `["your prompt"]`. */
  readonly positionals?: string;
  readonly options: Readonly<Record<string, CommandOption>>;
  /** Example invocations with what they do. */
  readonly examples: readonly (readonly [command: string, meaning: string])[];
  /** Extra paragraphs at the end of the help. */
  readonly notes?: readonly string[];
}

/** What the command line asked for. */
export type CommandLine =
  | {
    readonly kind: "run";
    readonly values: Readonly<Record<string, string | boolean | undefined>>;
    readonly positionals: readonly string[];
  }
  | { readonly kind: "help"; readonly text: string }
  | { readonly kind: "error"; readonly message: string };

/**
 * Parses arguments against a command's options.
 *
 * @param spec The command.
 * @param args The arguments (without the program).
 * @returns `run` with the values, `help` with the text, or `error` with one line.
 *
 * @example
 * ```ts
 * import { parseCommandLine } from "./command-line.ts";
 *
 * const spec = {
 *   invocation: "npm start --",
 *   summary: "One chat turn.",
 *   options: { model: { type: "string", value: "<id>", description: "the model" } },
 *   examples: [["npm start -- --model auto", "use auto"]],
 * } as const;
 * const line = parseCommandLine(spec, ["--nope"]);
 * console.assert(line.kind === "error" && line.message.includes("--nope"));
 * console.assert(parseCommandLine(spec, ["--help"]).kind === "help");
 * ```
 */
export function parseCommandLine(spec: CommandSpec, args: readonly string[]): CommandLine {
  if (args.includes("--help") || args.includes("-h")) {
    return { kind: "help", text: commandHelp(spec) };
  }
  const options: Record<string, { type: "string" | "boolean"; default?: string | boolean }> = {};
  for (const [name, option] of Object.entries(spec.options)) {
    options[name] = option.default === undefined
      ? { type: option.type }
      : { type: option.type, default: option.default };
  }
  try {
    const parsed = parseArgs({
      args: [...args],
      options,
      allowPositionals: spec.positionals !== undefined,
      strict: true,
    });
    return { kind: "run", values: parsed.values, positionals: parsed.positionals };
  } catch (error) {
    return { kind: "error", message: mistake(spec, error) };
  }
}

function mistake(spec: CommandSpec, error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const help = `run "${spec.invocation} --help" for the options`;
  const unknown = /Unknown option '([^']+)'/.exec(text);
  if (unknown) return `Unknown option ${unknown[1]}: ${help}`;
  const missing = /Option '(?:-\w, )?(--[^ ]+) <value>' argument missing/.exec(text);
  if (missing) return `Option ${missing[1]} needs a value: ${help}`;
  const positional = /Unexpected argument '([^']+)'/.exec(text);
  if (positional) return `Unexpected argument ${JSON.stringify(positional[1])}: ${help}`;
  return `${text.split("\n")[0]}: ${help}`;
}

/**
 * The `--help` text of a command.
 *
 * @param spec The command.
 * @returns Usage, options, examples and notes.
 */
export function commandHelp(spec: CommandSpec): string {
  const rows = Object.entries(spec.options).map(([name, option]) => {
    const flag = `--${name}${option.value === undefined ? "" : ` ${option.value}`}`;
    const fallback = option.default === undefined || option.default === false
      ? ""
      : ` (default ${String(option.default)})`;
    return [flag, `${option.description}${fallback}`] as const;
  });
  rows.push(["--help", "show this help"]);
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  const positional = spec.positionals === undefined ? "" : ` [${spec.positionals}]`;
  const exampleWidth = Math.max(...spec.examples.map(([command]) => command.length)) + 2;
  return [
    `Usage: ${spec.invocation} [options]${positional}`,
    "",
    wrap(spec.summary, 0),
    "",
    "Options:",
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${wrap(text, width + 2)}`),
    "",
    "Examples:",
    ...spec.examples.map(([command, meaning]) =>
      `  ${command.padEnd(exampleWidth)}${wrap(meaning, exampleWidth + 2)}`
    ),
    ...(spec.notes === undefined ? [] : ["", ...spec.notes.map((note) => wrap(note, 0))]),
  ].join("\n");
}

/** Help lines stay within this many columns where the words allow. */
const HELP_WIDTH = 100;

/** Wraps text that starts at column `indent`, continuing lines at the same column. */
function wrap(text: string, indent: number): string {
  const room = Math.max(HELP_WIDTH - indent, 30);
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.join(`\n${" ".repeat(indent)}`);
}
