/** Pieces of the rebuild tests: counting host tool runs and reading the rebuilt seed. */
import type { Tool, ToolSet } from "ai";
import type { RunRecord } from "../../src/testing/mod.ts";

/**
 * Wraps host tools so every run is counted (by the shell command, or the tool name).
 *
 * @returns The wrapped tools and the list of runs, in order.
 */
export function countingTools<T extends ToolSet>(tools: T): { tools: T; executed: string[] } {
  const executed: string[] = [];
  const wrapped: Record<string, Tool> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    wrapped[name] = execute === undefined ? tool : {
      ...tool,
      execute: (input: unknown, options: Parameters<typeof execute>[1]) => {
        const command = (input as { command?: unknown }).command;
        executed.push(typeof command === "string" ? unwrapped(command) : name);
        return execute(input, options);
      },
    };
  }
  return { tools: wrapped as T, executed };
}

/** The command the client wrapped to learn its exit status. */
function unwrapped(command: string): string {
  return /^\(\n([\s\S]*)\n\); __cursor_exit=/.exec(command)?.[1] ?? command;
}

/** What the model of a rebuilt Run saw first: its context lines and the seed's text. */
export function rebuiltSeed(run: RunRecord | undefined): { context: string; text: string } {
  const lines = run?.modelCalls[0]?.context ?? [];
  const texts = lines.flatMap((line) => {
    if (!line.startsWith("user: ")) return [];
    const parts: unknown = JSON.parse(line.slice("user: ".length));
    return Array.isArray(parts)
      ? parts.map((part: { text?: unknown }) => typeof part.text === "string" ? part.text : "")
      : [];
  });
  return { context: lines.join("\n"), text: texts.join("\n") };
}

/** How often `part` occurs in `text`. */
export function countOf(text: string, part: string): number {
  return text.split(part).length - 1;
}
