/**
 * The plugin tools the classic entry registers: `cursor_image_save`, which commits an
 * image Cursor generated (staged by the provider, named by an opaque id) under the host's
 * `edit` permission, and `custom_websearch`, a web search for Cursor's web requests under
 * the host's `websearch` permission (OpenCode offers its own `websearch` only to its own
 * providers). The 1.18 v2 plugin API has no tool domain, so a v2-only load lacks both.
 *
 * Arguments are plain JSON schemas (OpenCode accepts them and lists every one as
 * required); the input arrives unvalidated and is checked here.
 *
 * @module
 */
import { CursorError } from "../src/core/cursor-error.ts";
import {
  IMAGE_SAVE_TOOL,
  type ImageStaging,
} from "../src/provider/direct/tools/media/image-save.ts";

/** The web search tool's name (`websearch` itself is reserved by OpenCode). */
export const WEB_SEARCH_TOOL = "custom_websearch";

/** Exa's public MCP endpoint, the one OpenCode's own web search calls. */
const EXA_MCP_URL = "https://mcp.exa.ai/mcp";
const SEARCH_TIMEOUT_MS = 25_000;

/** What OpenCode passes a plugin tool's `execute` (the parts used here). */
export interface ToolContextLike {
  /** The session's project directory. */
  readonly directory?: string;
  /** The project's worktree root (permission patterns are relative to it). */
  readonly worktree?: string;
  /** Aborts the tool call. */
  readonly abort?: AbortSignal;
  /** Asks the person for a permission; rejects when refused. */
  ask?(request: {
    permission: string;
    patterns: string[];
    always: string[];
    metadata: Record<string, unknown>;
  }): Promise<void>;
}

/** What a plugin tool returns. */
export interface ToolOutputLike {
  /** The row's title. */
  readonly title: string;
  /** What the model reads. */
  readonly output: string;
  /** Kept with the row. */
  readonly metadata: Record<string, unknown>;
}

/** A classic plugin tool. */
export interface PluginToolLike {
  /** What the tool does, for the model. */
  readonly description: string;
  /** Each argument's JSON schema (OpenCode lists every one as required). */
  readonly args: Record<string, Record<string, unknown>>;
  /**
   * Runs the tool.
   *
   * @param args The model's arguments, unvalidated.
   * @param context The call's context.
   * @returns The row's title, output and metadata.
   */
  execute(args: unknown, context: ToolContextLike): Promise<ToolOutputLike>;
}

/** What the tools take from the platform. */
export interface CursorToolDependencies {
  /** Where the provider staged generated images; absent: the save tool fails clearly. */
  readonly imageStaging?: ImageStaging | undefined;
  /** Writes a file, creating its folders. */
  readonly writeFile?: ((path: string, bytes: Uint8Array) => Promise<void>) | undefined;
  readonly fetch: typeof fetch;
  readonly env: Readonly<Record<string, string | undefined>>;
}

/**
 * The classic entry's plugin tools, by name.
 *
 * @param deps The platform's pieces.
 * @returns `cursor_image_save` and `custom_websearch`.
 *
 * @example
 * ```ts
 * import { cursorPluginTools } from "./cursor-tools.ts";
 *
 * const tools = cursorPluginTools({ fetch: globalThis.fetch, env: {} });
 * console.assert("cursor_image_save" in tools && "custom_websearch" in tools);
 * ```
 */
export function cursorPluginTools(deps: CursorToolDependencies): Record<string, PluginToolLike> {
  return { [IMAGE_SAVE_TOOL]: imageSaveTool(deps), [WEB_SEARCH_TOOL]: webSearchTool(deps) };
}

function imageSaveTool(deps: CursorToolDependencies): PluginToolLike {
  return {
    description:
      "Saves an image Cursor generated to the path Cursor chose. Only the Cursor provider calls this tool, with the id of a staged image.",
    args: { image_id: { type: "string", description: "The staged image's id" } },
    async execute(args, context) {
      const id = stringArg(args, "image_id");
      const { imageStaging, writeFile } = deps;
      if (imageStaging === undefined || writeFile === undefined) {
        throw new CursorError(
          "config",
          "Saving generated images is not available on this platform",
        );
      }
      const image = await imageStaging.take(id);
      if (image === undefined) {
        throw new CursorError(
          "invalid_argument",
          `No generated image is waiting under id "${id}"; it was saved already or never staged`,
        );
      }
      const shown = relativePath(image.path, context.worktree ?? context.directory);
      await context.ask?.({
        permission: "edit",
        patterns: [shown],
        always: ["*"],
        metadata: { filepath: image.path },
      });
      await writeFile(image.path, image.bytes);
      return {
        title: shown,
        output: `Saved the generated image to ${image.path} (${image.bytes.length} bytes)`,
        metadata: { filepath: image.path, bytes: image.bytes.length },
      };
    },
  };
}

function webSearchTool(deps: CursorToolDependencies): PluginToolLike {
  return {
    description:
      "Searches the web for current information (Exa web search, as OpenCode's own websearch). Use it for anything beyond your knowledge cutoff.",
    args: { query: { type: "string", description: "The web search query" } },
    async execute(args, context) {
      const query = stringArg(args, "query");
      await context.ask?.({
        permission: "websearch",
        patterns: [query],
        always: ["*"],
        metadata: { query },
      });
      const text = await searchExa(query, deps, context.abort);
      return {
        title: `Web search: ${query}`,
        output: text ?? "No search results found. Please try a different query.",
        metadata: {},
      };
    },
  };
}

async function searchExa(
  query: string,
  deps: CursorToolDependencies,
  abort: AbortSignal | undefined,
): Promise<string | undefined> {
  const key = deps.env.EXA_API_KEY;
  const url = key ? `${EXA_MCP_URL}?exaApiKey=${encodeURIComponent(key)}` : EXA_MCP_URL;
  const timeout = AbortSignal.timeout(SEARCH_TIMEOUT_MS);
  const signal = abort === undefined ? timeout : AbortSignal.any([abort, timeout]);
  let response: Response;
  try {
    response = await deps.fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "web_search_exa",
          arguments: { query, type: "auto", numResults: 8, livecrawl: "fallback" },
        },
      }),
      signal,
    });
  } catch (error) {
    throw new CursorError(
      "network",
      `Web search for "${query}" failed: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!response.ok) {
    throw new CursorError(
      "network",
      `Web search for "${query}" failed with HTTP ${response.status}`,
    );
  }
  return searchText(await response.text());
}

/**
 * The result text of an MCP `tools/call` answer, sent as one JSON object or as SSE
 * `data:` lines.
 *
 * @param raw The response body.
 * @returns The first text content, if any.
 */
function searchText(raw: string): string | undefined {
  const candidates = [
    raw.trim(),
    ...raw.split("\n").filter((line) => line.startsWith("data: "))
      .map((line) => line.slice(6)),
  ];
  for (const candidate of candidates) {
    if (!candidate.startsWith("{")) continue;
    try {
      const parsed = JSON.parse(candidate) as {
        result?: { content?: { type?: unknown; text?: unknown }[] };
      };
      const text = parsed.result?.content?.find((item) =>
        item.type === "text" && typeof item.text === "string" && item.text !== ""
      )?.text;
      if (typeof text === "string") return text;
    } catch {
      // Not JSON: try the next candidate.
    }
  }
  return undefined;
}

function stringArg(args: unknown, name: string): string {
  const value = typeof args === "object" && args !== null
    ? (args as Record<string, unknown>)[name]
    : undefined;
  if (typeof value !== "string" || value.trim() === "") {
    throw new CursorError(
      "invalid_argument",
      `Tool argument "${name}" must be a non-empty string, got ${JSON.stringify(value)}`,
    );
  }
  return value;
}

function relativePath(path: string, root: string | undefined): string {
  if (root === undefined || root === "" || root === "/") return path;
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}
