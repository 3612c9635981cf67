/** Pieces of the rebuild tests: counting host tool runs and reading the rebuilt seed. */
import type { hostTools } from "../support/emulator.ts";
import type { RunRecord } from "../../src/testing/mod.ts";

/**
 * Host tools whose shell counts every command it runs.
 *
 * @returns The tools and the commands run, in order.
 */
export function countingTools(
  tools: ReturnType<typeof hostTools>,
): { tools: ReturnType<typeof hostTools>; executed: string[] } {
  const executed: string[] = [];
  const { bash } = tools;
  const execute = bash.execute;
  if (execute === undefined) return { tools, executed };
  return {
    tools: {
      ...tools,
      bash: {
        ...bash,
        execute: (input, options) => {
          executed.push(unwrapped(input.command));
          return execute(input, options);
        },
      },
    },
    executed,
  };
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
