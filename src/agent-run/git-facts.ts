/**
 * The git slice of the request context (`git_repos`, `git_repo_info_complete`,
 * `git_status_info_complete`): which repository the workspace is in, its branch, its
 * `origin` and its `git status`. Git itself runs through an injected {@link GitRunner}
 * (a process on the Node entry; the web core has none), every command under a time limit.
 *
 * @module
 */

/** How one git command ended. */
export type GitOutcome =
  | { readonly kind: "ok"; readonly stdout: string }
  | { readonly kind: "failed"; readonly exitCode: number | null }
  | { readonly kind: "timed-out" };

/** Runs git. Implementations kill the command when `timeoutMs` passes. */
export interface GitRunner {
  /**
   * Runs `git <args>` in `cwd`.
   *
   * @param args The arguments after `git`.
   * @param options The working directory and the time limit.
   * @returns How it ended; never rejects.
   */
  run(
    args: readonly string[],
    options: { readonly cwd: string; readonly timeoutMs: number },
  ): Promise<GitOutcome>;
}

/** One repository as the request context describes it (`GitRepoInfo`). */
export interface GitRepoFacts {
  /** The repository's top-level folder. */
  readonly path: string;
  /** `git status --porcelain` lines (the branch header removed), `""` when clean or unknown. */
  readonly status: string;
  /** The current branch, `""` when detached or unknown. */
  readonly branch: string;
  /** The `origin` remote's URL, when there is one. */
  readonly remoteUrl?: string;
}

/** The git facts a request context is built with. */
export interface GitFacts {
  readonly repos: readonly GitRepoFacts[];
  /** Whether the repository slice is complete (false when git could not answer). */
  readonly repoInfoComplete: boolean;
  /** Whether each repository's status is complete (false after a timeout). */
  readonly statusComplete: boolean;
}

/** A discovery with its timings and the commands that timed out. */
export interface GitDiscovery {
  readonly facts: GitFacts;
  readonly elapsedMs: number;
  readonly statusMs: number;
  /** Commands (their arguments, space-joined) that ran into the time limit. */
  readonly timedOut: readonly string[];
}

/** The time limit of each git command. */
export const GIT_TIMEOUT_MS = 5_000;

/** Status lines kept (the request context is part of every prompt). */
export const MAX_STATUS_LINES = 200;

const STATUS_ARGS = ["status", "--porcelain", "-b"] as const;

/**
 * Discovers the git facts of a workspace: its top-level folder, then its status and
 * `origin` together. Not a repository (or no git): no repos, complete. A timed-out
 * status: the repository with an empty status and `statusComplete: false`.
 *
 * @param git Runs git.
 * @param root The workspace root.
 * @param now The clock (ms).
 * @returns The facts, timings and timed-out commands.
 *
 * @example
 * ```ts
 * import { discoverGit } from "./git-facts.ts";
 *
 * const outputs: Record<string, string> = {
 *   "rev-parse --show-toplevel": "/ws\n",
 *   "status --porcelain -b": "## main...origin/main\n M a.ts\n",
 *   "remote get-url origin": "https://example.com/r.git\n",
 * };
 * const git = { run: (args: readonly string[]) => Promise.resolve({ kind: "ok" as const, stdout: outputs[args.join(" ")] ?? "" }) };
 * const { facts } = await discoverGit(git, "/ws", () => 0);
 * console.assert(facts.repos[0]?.branch === "main" && facts.repos[0]?.status === " M a.ts");
 * ```
 */
export async function discoverGit(
  git: GitRunner,
  root: string,
  now: () => number,
): Promise<GitDiscovery> {
  const started = now();
  const timedOut: string[] = [];
  const run = async (args: readonly string[], cwd: string) => {
    const outcome = await git.run(args, { cwd, timeoutMs: GIT_TIMEOUT_MS });
    if (outcome.kind === "timed-out") timedOut.push(args.join(" "));
    return outcome;
  };
  const top = await run(["rev-parse", "--show-toplevel"], root);
  if (top.kind !== "ok" || top.stdout.trim() === "") {
    const complete = top.kind !== "timed-out";
    return {
      facts: { repos: [], repoInfoComplete: complete, statusComplete: complete },
      elapsedMs: now() - started,
      statusMs: 0,
      timedOut,
    };
  }
  const path = top.stdout.trim();
  const statusStarted = now();
  const [status, remote] = await Promise.all([
    run(STATUS_ARGS, path).then((outcome) => ({ outcome, ms: now() - statusStarted })),
    run(["remote", "get-url", "origin"], path),
  ]);
  const parsed = status.outcome.kind === "ok"
    ? parsePorcelain(status.outcome.stdout)
    : { branch: "", status: "" };
  const remoteUrl = remote.kind === "ok" ? withoutCredentials(remote.stdout.trim()) : "";
  return {
    facts: {
      repos: [{ path, ...parsed, ...(remoteUrl === "" ? {} : { remoteUrl }) }],
      repoInfoComplete: true,
      statusComplete: status.outcome.kind === "ok",
    },
    elapsedMs: now() - started,
    statusMs: status.ms,
    timedOut,
  };
}

/**
 * Reads `git status --porcelain -b`: the branch from its `## ` header, the rest as status
 * (at most {@link MAX_STATUS_LINES} lines, then a count of the rest).
 *
 * @param text The command's output.
 * @returns The branch and the status lines.
 *
 * @example
 * ```ts
 * import { parsePorcelain } from "./git-facts.ts";
 *
 * console.assert(parsePorcelain("## feature/x...origin/feature/x [ahead 1]\n?? new.ts\n").branch === "feature/x");
 * console.assert(parsePorcelain("## HEAD (no branch)\n").branch === "");
 * console.assert(parsePorcelain("## No commits yet on main\n").branch === "main");
 * ```
 */
export function parsePorcelain(text: string): { branch: string; status: string } {
  const lines = text.split("\n").filter((line) => line !== "");
  const header = lines[0]?.startsWith("## ") ? lines.shift()?.slice(3) ?? "" : "";
  const kept = lines.slice(0, MAX_STATUS_LINES);
  if (lines.length > kept.length) kept.push(`... ${lines.length - kept.length} more`);
  return { branch: branchOf(header), status: kept.join("\n") };
}

/**
 * A remote URL without the user information a URL can carry (`https://user:token@host/…`),
 * so no credential leaves the machine; scp-style `git@host:path` has none and is kept.
 */
function withoutCredentials(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

function branchOf(header: string): string {
  if (header === "" || header.startsWith("HEAD (no branch)")) return "";
  const unborn = /^(?:No commits yet on|Initial commit on) (.+)$/.exec(header);
  if (unborn) return unborn[1] ?? "";
  return header.split("...")[0]?.split(" ")[0] ?? "";
}
