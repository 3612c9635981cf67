/**
 * The workspace's git facts for request contexts that are being built: discovered once per
 * directory, reused by every build for the same directory within 30 s (the title request
 * and its turn), and logged
 * (`git: discovery …`, `git: \`…\` timed out after …`, `workspace facts: reused ageMs=…`).
 * Only a context that is rebuilt anyway asks for them (docs/decisions/120-…).
 *
 * @module
 */
import type { DebugLogger } from "../../../core/logger.ts";
import {
  discoverGit,
  GIT_TIMEOUT_MS,
  type GitFacts,
  type GitRunner,
} from "../../../agent-run/git-facts.ts";
import { emitDiagnostic } from "../diagnostics/format.ts";

/** How long a discovery serves later builds. */
export const WORKSPACE_FACTS_REUSE_MS = 30_000;

/** Most directories whose latest discovery is kept. */
const MAX_DIRECTORIES = 32;

/** The git facts source of one provider. */
export interface WorkspaceGit {
  /**
   * The git facts of a directory for a request context being built now.
   *
   * @param logger Where the discovery lines go.
   * @param root The workspace directory of the call.
   * @returns The facts, or `undefined` when this runtime has no git.
   */
  facts(logger: DebugLogger, root: string): Promise<GitFacts | undefined>;
}

/**
 * Creates the git facts source of a provider (state lives in the provider's config).
 *
 * @param options The git runner (none on the web entry) and the clock.
 * @returns The source.
 *
 * @example
 * ```ts
 * import { silentLogger } from "../../../core/logger.ts";
 * import { createWorkspaceGit } from "./workspace-git.ts";
 *
 * const web = createWorkspaceGit({ git: undefined, now: Date.now });
 * console.assert((await web.facts(silentLogger, "/ws")) === undefined);
 * ```
 */
export function createWorkspaceGit(options: {
  readonly git: GitRunner | undefined;
  readonly now: () => number;
}): WorkspaceGit {
  const { git, now } = options;
  const latest = new Map<
    string,
    { readonly startedAt: number; readonly facts: Promise<GitFacts> }
  >();
  return {
    facts(logger, root) {
      if (git === undefined) {
        emitDiagnostic(logger, { kind: "git-unavailable" });
        return Promise.resolve(undefined);
      }
      const startedAt = now();
      const last = latest.get(root);
      if (last !== undefined && startedAt - last.startedAt < WORKSPACE_FACTS_REUSE_MS) {
        emitDiagnostic(logger, {
          kind: "workspace-facts-reused",
          ageMs: startedAt - last.startedAt,
        });
        return last.facts;
      }
      const facts = discoverGit(git, root, now).then((discovery) => {
        for (const command of discovery.timedOut) {
          emitDiagnostic(logger, { kind: "git-timeout", command, timeoutMs: GIT_TIMEOUT_MS });
        }
        emitDiagnostic(logger, {
          kind: "git-discovery",
          elapsedMs: discovery.elapsedMs,
          statusMs: discovery.statusMs,
          statusComplete: discovery.facts.statusComplete,
          repos: discovery.facts.repos.length,
        });
        return discovery.facts;
      });
      latest.delete(root);
      latest.set(root, { startedAt, facts });
      for (const oldest of latest.keys()) {
        if (latest.size <= MAX_DIRECTORIES) break;
        latest.delete(oldest);
      }
      return facts;
    },
  };
}
