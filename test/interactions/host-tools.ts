/**
 * Host tools with OpenCode 1.18's schemas for the interaction tests: a question tool whose
 * simulated person answers, types or dismisses (OpenCode's output text and dismissal
 * error), and a write tool that really writes, or refuses as a session rule would.
 */
import { dirname } from "node:path";
import { mkdirSync, writeFileSync } from "node:fs";
import { jsonSchema, type Tool, tool } from "ai";

export interface AskedQuestion {
  question: string;
  header: string;
  options: { label: string; description: string }[];
  multiple?: boolean;
}

/** What the simulated person does with each question. */
export type Person = (question: AskedQuestion) => string[] | "dismiss";

/** A question tool with OpenCode 1.18's schema, output text and dismissal error. */
export function questionTool(person: Person, seen: AskedQuestion[] = []): Tool {
  return tool({
    description: "Ask the user questions",
    inputSchema: jsonSchema<{ questions: AskedQuestion[] }>({
      type: "object",
      properties: { questions: { type: "array" } },
      required: ["questions"],
    }),
    execute: ({ questions }) => {
      seen.push(...questions);
      const answers = questions.map((q) => person(q));
      if (answers.includes("dismiss")) throw new Error("The user dismissed this question");
      const pairs = questions.map((q, i) => {
        const answer = answers[i] as string[];
        return `"${q.question}"="${answer.length ? answer.join(", ") : "Unanswered"}"`;
      });
      return `User has answered your questions: ${
        pairs.join(", ")
      }. You can now continue with the user's answers in mind.`;
    },
  });
}

/** A write tool that really writes (OpenCode's schema). */
export function writeTool(
  written: string[] = [],
  refuse?: (path: string) => string | undefined,
): Tool {
  return tool({
    description: "Write a file",
    inputSchema: jsonSchema<{ filePath: string; content: string }>({
      type: "object",
      properties: { filePath: { type: "string" }, content: { type: "string" } },
      required: ["filePath", "content"],
    }),
    execute: ({ filePath, content }) => {
      const refusal = refuse?.(filePath);
      if (refusal !== undefined) throw new Error(refusal);
      mkdirSync(dirname(filePath), { recursive: true });
      writeFileSync(filePath, content);
      written.push(filePath);
      return "Wrote file successfully.";
    },
  });
}
