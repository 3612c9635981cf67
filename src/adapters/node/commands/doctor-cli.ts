/**
 * The `doctor` command: `npx ai-sdk-provider-cursor doctor`, `npm run doctor`,
 * `deno run -A scripts/doctor.ts`. Checks credentials, Cursor's hosts, the client
 * version, the models, OpenCode's config, the debug log and `cursor-agent`; prints text
 * for people or `--json` for machines; exits 1 when a check failed.
 *
 * @module
 */
import process from "node:process";
import { formatDoctorJson, formatDoctorText, runDoctor } from "../../../doctor/run-doctor.ts";
import { type CommandSpec, parseCommandLine } from "./command-line.ts";
import { createNodeDoctorProbes, type NodeDoctorProbeOptions } from "./doctor-probes.ts";

/** The command's options and help. */
export const DOCTOR_COMMAND: CommandSpec = {
  invocation: "npx ai-sdk-provider-cursor doctor",
  summary: "Checks a set-up end to end: credentials (present, decodable, expiry, a live " +
    "exchange), Cursor's hosts (DNS, TLS, GetServerConfig, the agent-host allow-list), the " +
    "client version, the models (live list and cache), OpenCode's config, the debug log and " +
    "cursor-agent. Every problem comes with the command that fixes it; secrets are never printed.",
  options: { json: { type: "boolean", description: "print the report as JSON" } },
  examples: [
    ["npx ai-sdk-provider-cursor doctor", "check this machine"],
    [
      "npm run -s doctor -- --json",
      "the same, as JSON (from a checkout; -s keeps npm's banner off stdout)",
    ],
    ["CURSOR_API_KEY=crsr_… npx ai-sdk-provider-cursor doctor", "check an API key"],
  ],
  notes: [
    "Exit status: 0 when nothing failed (warnings allowed), 1 otherwise, 2 for a usage error.",
  ],
};

/** Whether npm ran this command as a script without `-s` (it then prints a banner on stdout). */
function npmBannerBefore(env: Readonly<Record<string, string | undefined>>): boolean {
  return env.npm_lifecycle_event !== undefined && env.npm_config_loglevel !== "silent";
}

/** Where the command writes. */
export interface DoctorCliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * Runs the command.
 *
 * @param args Arguments after `doctor`.
 * @param options Probe options (environment, project folder, fetch).
 * @param io Output; default the process's streams.
 * @returns The exit status.
 */
export async function runDoctorCli(
  args: readonly string[],
  options: NodeDoctorProbeOptions = {},
  io: DoctorCliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
): Promise<number> {
  const command = parseCommandLine(DOCTOR_COMMAND, args);
  if (command.kind === "help") {
    io.stdout(`${command.text}\n`);
    return 0;
  }
  if (command.kind === "error") {
    io.stderr(`${command.message}\n`);
    return 2;
  }
  const report = await runDoctor(createNodeDoctorProbes(options));
  const env = options.env ?? process.env;
  if (command.values.json && npmBannerBefore(env)) {
    io.stderr(
      "note: npm printed its banner on stdout before this JSON; `npm run -s doctor -- --json` " +
        "prints the JSON alone\n",
    );
  }
  io.stdout(`${command.values.json ? formatDoctorJson(report) : formatDoctorText(report)}\n`);
  return report.ok ? 0 : 1;
}

/**
 * The package's `bin`: `ai-sdk-provider-cursor doctor [--json]`.
 *
 * @param argv The process arguments after the program (`process.argv.slice(2)`).
 * @returns The exit status.
 */
export async function runPackageBin(argv: readonly string[]): Promise<number> {
  const [subcommand, ...rest] = argv;
  if (subcommand === "doctor") return await runDoctorCli(rest);
  const usage = "Usage: npx ai-sdk-provider-cursor doctor [--json]  (doctor --help for more)";
  if (subcommand === undefined || subcommand === "--help" || subcommand === "-h") {
    process.stdout.write(`${usage}\n`);
    return subcommand === undefined ? 2 : 0;
  }
  process.stderr.write(`Unknown command ${JSON.stringify(subcommand)}: ${usage}\n`);
  return 2;
}
