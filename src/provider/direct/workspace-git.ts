/**
 * The workspace's git facts for request contexts that are being built: discovered once,
 * reused by every build within 30 s (the title request and its turn), and logged
 * (`git: discovery …`, `git: \`…\` timed out after …`, `workspace facts: reused ageMs=…`).
 * Only a context that is rebuilt anyway asks for them (docs/decisions/120-…).
 *
 * @module
 */
import type { DebugLogger } from "../../core/logger.ts";
import {
  discoverGit,
  GIT_TIMEOUT_MS,
  type GitFacts,
  type GitRunner,
} from "../../session/git-facts.ts";
import { emitDiagnostic } from "./diagnostics/format.ts";

/** How long a discovery serves later builds. */
export const WORKSPACE_FACTS_REUSE_MS = 30_000;

/** The git facts source of one provider. */
export interface WorkspaceGit {
  /**
   * The git facts for a request context being built now.
   *
   * @param logger Where the discovery lines go.
   * @returns The facts, or `undefined` when this runtime has no git.
   */
  facts(logger: DebugLogger): Promise<GitFacts | undefined>;
}

/**
 * Creates the git facts source of a provider (state lives in the provider's config).
 *
 * @param options The git runner (none on the web entry), the workspace root and the clock.
 * @returns The source.
 *
 * @example
 * ```ts
 * import { silentLogger } from "../../core/logger.ts";
 * import { createWorkspaceGit } from "./workspace-git.ts";
 *
 * const web = createWorkspaceGit({ git: undefined, root: "/ws", now: Date.now });
 * console.assert((await web.facts(silentLogger)) === undefined);
 * ```
 */
export function createWorkspaceGit(options: {
  readonly git: GitRunner | undefined;
  readonly root: string;
  readonly now: () => number;
}): WorkspaceGit {
  const { git, root, now } = options;
  let last: { readonly startedAt: number; readonly facts: Promise<GitFacts> } | undefined;
  return {
    facts(logger) {
      if (git === undefined) {
        emitDiagnostic(logger, { kind: "git-unavailable" });
        return Promise.resolve(undefined);
      }
      const startedAt = now();
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
      last = { startedAt, facts };
      return facts;
    },
  };
}
