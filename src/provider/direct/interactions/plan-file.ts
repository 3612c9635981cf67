/**
 * Where a Cursor plan is saved: `.opencode/plans/<name>.md` under the workspace, the
 * folder OpenCode's plan agent may edit while every other edit is denied.
 *
 * @module
 */

/**
 * The plan file's absolute path.
 *
 * @param workspaceRoot The workspace root.
 * @param name Cursor's plan name.
 * @returns The path, with the name reduced to a safe file name.
 *
 * @example
 * ```ts
 * import { planPath } from "./plan-file.ts";
 *
 * console.assert(planPath("/ws", "Add a CLI flag!") === "/ws/.opencode/plans/add-a-cli-flag.md");
 * ```
 */
export function planPath(workspaceRoot: string, name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
    .slice(0, 60) || "plan";
  return `${workspaceRoot.replace(/\/+$/, "")}/.opencode/plans/${slug}.md`;
}
