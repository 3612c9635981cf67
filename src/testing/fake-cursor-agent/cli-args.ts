/**
 * The fake's argv parser, accepting what the real CLI accepts: flags in any order,
 * `--flag value` and `--flag=value`, short aliases (`-p -f -m -a -H -v`), `--yolo`,
 * a positional prompt after the flags, a `--` separator, and subcommands. Unknown
 * options fail with the CLI's commander.js wording.
 *
 * @module
 */

/** The subcommands the fake knows. */
export const SUBCOMMANDS = [
  "status",
  "whoami",
  "models",
  "create-chat",
  "ls",
  "about",
  "login",
  "logout",
  "update",
  "upgrade",
] as const;

/** A subcommand name. */
export type Subcommand = typeof SUBCOMMANDS[number];

/** Parsed command line. */
export interface FakeArgs {
  readonly subcommand?: Subcommand;
  readonly print: boolean;
  /** `undefined` when the flag was not given (the CLI then writes text). */
  readonly outputFormat?: string;
  readonly streamPartialOutput: boolean;
  readonly model?: string;
  readonly workspace?: string;
  /** A chat id, or `true` for a bare `--resume`. */
  readonly resume?: string | true;
  readonly continueLatest: boolean;
  readonly force: boolean;
  readonly trust: boolean;
  readonly approveMcps: boolean;
  readonly apiKey?: string;
  readonly headers: readonly string[];
  readonly sandbox?: string;
  readonly mode?: string;
  readonly version: boolean;
  readonly listModels: boolean;
  /** The positional prompt, when one was given. */
  readonly prompt?: string;
}

const VALUE_FLAGS: Readonly<Record<string, string>> = {
  "--output-format": "outputFormat",
  "--model": "model",
  "-m": "model",
  "--workspace": "workspace",
  "--api-key": "apiKey",
  "-a": "apiKey",
  "--header": "header",
  "-H": "header",
  "--sandbox": "sandbox",
  "--mode": "mode",
  "--add-dir": "ignored",
  "--endpoint": "ignored",
  "--worktree-base": "ignored",
  "--name": "ignored",
  "-n": "ignored",
};

const BOOLEAN_FLAGS: Readonly<Record<string, string>> = {
  "--print": "print",
  "-p": "print",
  "--stream-partial-output": "streamPartialOutput",
  "--force": "force",
  "-f": "force",
  "--yolo": "force",
  "--trust": "trust",
  "--approve-mcps": "approveMcps",
  "--continue": "continueLatest",
  "--version": "version",
  "-v": "version",
  "--list-models": "listModels",
  "--plan": "ignored",
  "--fullscreen": "ignored",
  "--insecure": "ignored",
  "--skip-worktree-setup": "ignored",
  "--background": "ignored",
  "-b": "ignored",
};

/**
 * Parses the fake's argv (without the program name).
 *
 * @param argv Arguments as received.
 * @returns The parsed arguments, or the CLI's error text.
 */
export function parseFakeArgs(
  argv: readonly string[],
): { ok: true; args: FakeArgs } | { ok: false; error: string } {
  const values: Record<string, string | boolean | string[]> = { header: [] };
  const positional: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const raw = argv[index] ?? "";
    if (raw === "--") {
      positional.push(...argv.slice(index + 1));
      break;
    }
    if (!raw.startsWith("-") || raw === "-") {
      positional.push(raw);
      continue;
    }
    const eq = raw.startsWith("--") ? raw.indexOf("=") : -1;
    const flag = eq === -1 ? raw : raw.slice(0, eq);
    const inline = eq === -1 ? undefined : raw.slice(eq + 1);
    if (flag === "--resume" || flag === "--worktree" || flag === "-w") {
      const next = argv[index + 1];
      const value = inline ??
        (next !== undefined && !next.startsWith("-") ? (index++, next) : undefined);
      if (flag === "--resume") values["resume"] = value ?? true;
      continue;
    }
    const valueKey = VALUE_FLAGS[flag];
    if (valueKey !== undefined) {
      const value = inline ?? argv[++index];
      if (value === undefined) {
        return { ok: false, error: `error: option '${flag} <value>' argument missing` };
      }
      if (valueKey === "header") (values["header"] as string[]).push(value);
      else values[valueKey] = value;
      continue;
    }
    const booleanKey = BOOLEAN_FLAGS[flag];
    if (booleanKey === undefined) return { ok: false, error: `error: unknown option '${flag}'` };
    values[booleanKey] = true;
  }
  return { ok: true, args: toArgs(values, positional) };
}

function toArgs(
  values: Record<string, string | boolean | string[]>,
  positional: string[],
): FakeArgs {
  const text = (
    key: string,
  ) => (typeof values[key] === "string" ? values[key] as string : undefined);
  const flag = (key: string) => values[key] === true;
  const first = positional[0];
  const subcommand = SUBCOMMANDS.find((name) => name === first);
  const promptWords = subcommand === undefined ? positional : positional.slice(1);
  const resume = values["resume"];
  const args: FakeArgs = {
    print: flag("print"),
    streamPartialOutput: flag("streamPartialOutput"),
    continueLatest: flag("continueLatest"),
    force: flag("force"),
    trust: flag("trust"),
    approveMcps: flag("approveMcps"),
    version: flag("version"),
    listModels: flag("listModels"),
    headers: Array.isArray(values["header"]) ? values["header"] : [],
    ...(subcommand === undefined ? {} : { subcommand }),
    ...pick("outputFormat", text("outputFormat")),
    ...pick("model", text("model")),
    ...pick("workspace", text("workspace")),
    ...pick("apiKey", text("apiKey")),
    ...pick("sandbox", text("sandbox")),
    ...pick("mode", text("mode")),
    ...(typeof resume === "string" || resume === true ? { resume } : {}),
    ...(promptWords.length > 0 ? { prompt: promptWords.join(" ") } : {}),
  };
  return args;
}

function pick<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  const picked: { [P in K]?: string } = {};
  if (value !== undefined) picked[key] = value;
  return picked;
}
