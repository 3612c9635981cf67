/**
 * Capability epochs: the host tools advertised to Cursor (as MCP tools in the request
 * context) only grow within a conversation. A non-empty catalogue keeps every name and
 * descriptor advertised before and appends new names; a tool the host stops offering
 * (a permission shrink) stays advertised, so the prompt prefix is not rewritten, while
 * execution still goes by what the host offers now. The cache diagnosis tells whether
 * Cursor's `tools` category moved and whether the client's overlay changed with it.
 *
 * @module
 */
import type { AdvertisedTool } from "../../../agent-run/request-context.ts";
import type { HostTools } from "../tools/host-tools.ts";

/**
 * The catalogue to advertise: earlier names (with their first descriptors) kept, new
 * MCP-only host tools appended.
 *
 * @param previous What the conversation advertised so far.
 * @param tools The host tools of this call.
 * @returns The catalogue, in advertised order.
 *
 * @example
 * ```ts
 * import { advertisedTools } from "./capability-epoch.ts";
 *
 * const tool = (name: string) => ({ type: "function" as const, name, inputSchema: {} });
 * const first = advertisedTools([], { mcp: new Map([["a", tool("a")], ["b", tool("b")]]) });
 * const shrunk = advertisedTools(first, { mcp: new Map([["a", tool("a")]]) });
 * console.assert(shrunk.map((t) => t.name).join() === "a,b");
 * ```
 */
export function advertisedTools(
  previous: readonly AdvertisedTool[],
  tools: Pick<HostTools, "mcp">,
): AdvertisedTool[] {
  const out = [...previous];
  const known = new Set(out.map((t) => t.name));
  for (const [name, tool] of tools.mcp) {
    if (known.has(name)) continue;
    out.push({ name, description: tool.description ?? "", inputSchema: tool.inputSchema });
  }
  return out;
}

/**
 * The runbook's `toolsCategoryChurn`: `none` when Cursor's `tools` category kept its
 * size, `upstream-stable-overlay` when it moved while the request context was reused,
 * `client-overlay-changed` when it moved and the request context was rebuilt.
 *
 * @param prior Categories of the checkpoint the Run started from.
 * @param current Categories of the Run's latest checkpoint.
 * @param requestContext `reused` or `built`.
 * @returns The churn label.
 */
export function toolsCategoryChurn(
  prior: Record<string, number> | undefined,
  current: Record<string, number> | undefined,
  requestContext: string,
): string {
  const before = prior?.["tools"];
  const after = current?.["tools"];
  if (before === undefined || after === undefined || before === after) return "none";
  return requestContext === "reused" ? "upstream-stable-overlay" : "client-overlay-changed";
}
