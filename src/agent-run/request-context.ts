/**
 * Builds the `RequestContext` (the client's description of its world) and keeps its
 * encoded bytes stable while its inputs are unchanged, so the prompt prefix Cursor sees
 * stays byte-identical across turns.
 *
 * @module
 */
import { create, fromJson, type JsonValue, toBinary } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { type RequestContext, RequestContextSchema } from "../gen/agent/v1/request_context_pb.ts";
import type { GitFacts } from "./git-facts.ts";

/** What the request context is built from. */
export interface WorkspaceFacts {
  /** The workspace root (first of `workspace_paths`). */
  readonly workspaceRoot: string;
  /** The operating system and its version, e.g. `linux 6.1`. */
  readonly osVersion: string;
  /** The user's shell, e.g. `/bin/zsh`. */
  readonly shell: string;
  /** The IANA time zone, e.g. `Europe/Berlin`. */
  readonly timeZone: string;
  /** Whether the working directory is the home directory. */
  readonly isHomeDirectory?: boolean;
}

/** Inputs that decide the request context's content. */
export interface RequestContextInputs {
  readonly workspace: WorkspaceFacts;
  /** The host's system prompt, sent as one global rule. */
  readonly systemPrompt: string;
  /** Host tools advertised to Cursor as MCP tools (those with no Cursor counterpart). */
  readonly tools?: readonly AdvertisedTool[];
  /**
   * The host's skills, sent as `agent_skills` with `agent_skills_info_complete`; absent
   * when the host lists no skills (the slice is then left unset).
   */
  readonly skills?: readonly AdvertisedSkill[];
  /**
   * The workspace's git facts, discovered when the context is built and frozen with it:
   * they are not part of the reuse key, so a file edit never rebuilds the context
   * (docs/decisions/120-git-facts-frozen-per-conversation.md).
   */
  readonly git?: GitFacts | undefined;
}

/** A host tool as Cursor sees it. */
export interface AdvertisedTool {
  readonly name: string;
  readonly description: string;
  /** The tool's JSON schema. */
  readonly inputSchema: unknown;
}

/** A host skill as Cursor sees it: its `SKILL.md` and when to use it. */
export interface AdvertisedSkill {
  readonly description: string;
  /** Absolute path of the skill's `SKILL.md`. */
  readonly path: string;
}

/** The MCP provider identifier host tools are advertised under. */
export const HOST_TOOL_PROVIDER = "opencode";

/** The rule path under which the host's system prompt travels. */
export const SYSTEM_RULE_PATH = "system-instructions";

/**
 * Builds a request context.
 *
 * @param inputs Workspace facts and the system prompt.
 * @returns The `RequestContext` message.
 *
 * @example
 * ```ts
 * import { buildRequestContext } from "./request-context.ts";
 *
 * const context = buildRequestContext({
 *   workspace: { workspaceRoot: "/ws", osVersion: "linux", shell: "/bin/sh", timeZone: "UTC" },
 *   systemPrompt: "Be brief",
 * });
 * console.assert(context.rules[0]?.content === "Be brief");
 * ```
 */
export function buildRequestContext(inputs: RequestContextInputs): RequestContext {
  const { workspace } = inputs;
  return create(RequestContextSchema, {
    rules: inputs.systemPrompt
      ? [{
        fullPath: SYSTEM_RULE_PATH,
        content: inputs.systemPrompt,
        type: { type: { case: "global", value: {} } },
      }]
      : [],
    env: {
      osVersion: workspace.osVersion,
      workspacePaths: [workspace.workspaceRoot],
      shell: workspace.shell,
      timeZone: workspace.timeZone,
      sandboxEnabled: false,
      sandboxSupported: false,
      processWorkingDirectory: workspace.workspaceRoot,
      isWorkingDirHomeDir: workspace.isHomeDirectory ?? false,
    },
    tools: (inputs.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: fromJson(ValueSchema, toJsonValue(tool.inputSchema)),
      providerIdentifier: HOST_TOOL_PROVIDER,
      toolName: tool.name,
    })),
    webSearchEnabled: false,
    webFetchEnabled: false,
    rulesInfoComplete: true,
    envInfoComplete: true,
    mcpInfoComplete: true,
    ...(inputs.skills === undefined ? {} : skillsSlice(inputs.skills)),
    ...(inputs.git === undefined ? {} : gitSlice(inputs.git)),
  });
}

/** Skills by path and description; the model reads a `SKILL.md` itself when it uses one. */
function skillsSlice(skills: readonly AdvertisedSkill[]) {
  return {
    agentSkills: skills.map((skill) => ({ fullPath: skill.path, description: skill.description })),
    agentSkillsInfoComplete: true,
  };
}

function gitSlice(git: GitFacts) {
  return {
    gitRepos: git.repos.map((repo) => ({
      path: repo.path,
      status: repo.status,
      branchName: repo.branch,
      ...(repo.remoteUrl === undefined ? {} : { remoteUrl: repo.remoteUrl }),
    })),
    // Only `true` goes on the wire: an unknown or incomplete fact is left unset.
    ...(git.repoInfoComplete ? { gitRepoInfoComplete: true } : {}),
    ...(git.statusComplete ? { gitStatusInfoComplete: true } : {}),
  };
}

/**
 * The reuse key of a request context: everything it is built from except the git facts.
 *
 * @param inputs What the context is built from.
 * @returns The key.
 *
 * @example
 * ```ts
 * import { requestContextKey } from "./request-context.ts";
 *
 * const workspace = { workspaceRoot: "/ws", osVersion: "linux", shell: "/bin/sh", timeZone: "UTC" };
 * const git = { repos: [], repoInfoComplete: true, statusComplete: true };
 * console.assert(requestContextKey({ workspace, systemPrompt: "" }) === requestContextKey({ workspace, systemPrompt: "", git }));
 * ```
 */
export function requestContextKey(inputs: RequestContextInputs): string {
  const { git: _git, ...keyed } = inputs;
  return JSON.stringify(keyed);
}

function toJsonValue(value: unknown): JsonValue {
  if (
    value === null || typeof value === "string" || typeof value === "number" ||
    typeof value === "boolean"
  ) return value;
  if (Array.isArray(value)) return value.map(toJsonValue);
  if (typeof value === "object") {
    const out: { [key: string]: JsonValue } = {};
    for (const [key, entry] of Object.entries(value)) {
      if (entry !== undefined) out[key] = toJsonValue(entry);
    }
    return out;
  }
  return null;
}

/** A request context with its encoded bytes. */
export interface MaterializedRequestContext {
  readonly message: RequestContext;
  readonly bytes: Uint8Array;
}

/**
 * Materializes a request context, reusing the previous one (same object, same bytes,
 * same git facts) when its inputs other than git are unchanged.
 *
 * @param inputs What the context is built from.
 * @param previous The previously sent context with its inputs key.
 * @returns The context, its key, and whether it was reused.
 */
export function materializeRequestContext(
  inputs: RequestContextInputs,
  previous: (MaterializedRequestContext & { readonly key: string }) | undefined,
): MaterializedRequestContext & { readonly key: string; readonly reused: boolean } {
  const key = requestContextKey(inputs);
  if (previous !== undefined && previous.key === key) return { ...previous, reused: true };
  const message = buildRequestContext(inputs);
  return { message, bytes: toBinary(RequestContextSchema, message), key, reused: false };
}
