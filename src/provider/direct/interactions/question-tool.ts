/**
 * The host's question tool (OpenCode's `question`): its input is
 * `{ questions: [{ question, header, options: [{ label, description }], multiple? }] }`;
 * its output names each answer as `"<question>"="<label>, <label>"` (or `"Unanswered"`),
 * and a dismissal comes back as an error result ("The user dismissed this question").
 *
 * @module
 */
import type { JSONObject, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import type { HostTools } from "../tools/host-tools.ts";
import { hasProperty } from "../tools/host-tools.ts";

/** OpenCode's limit for a question's header. */
const HEADER_MAX = 30;

/** One question as the host asks it. */
export interface HostQuestion {
  readonly question: string;
  readonly header: string;
  readonly options: readonly { readonly label: string; readonly description: string }[];
  readonly multiple?: boolean;
}

/** What a person answered to one question. */
export interface HostAnswer {
  /** The option labels picked. */
  readonly labels: readonly string[];
  /** Text typed instead of (or besides) picking options. */
  readonly freeform: string;
}

/**
 * The host's question tool, when this call offers one with a `questions` array.
 *
 * @param tools The call's host tools.
 * @returns The tool, or `undefined` when the host has no question UI.
 *
 * @example
 * ```ts
 * import { classifyHostTools } from "../tools/host-tools.ts";
 * import { questionTool } from "./question-tool.ts";
 *
 * const tools = classifyHostTools([{ type: "function", name: "question", inputSchema: { type: "object", properties: { questions: { type: "array" } } } }]);
 * console.assert(questionTool(tools)?.name === "question");
 * ```
 */
export function questionTool(tools: HostTools): LanguageModelV3FunctionTool | undefined {
  const tool = tools.all.get("question");
  return tool !== undefined && hasProperty(tool, "questions") ? tool : undefined;
}

/**
 * The question tool's input.
 *
 * @param questions The questions, in order.
 * @returns The JSON input.
 *
 * @example
 * ```ts
 * import { questionInput } from "./question-tool.ts";
 *
 * const input = questionInput([{ question: "Which?", header: "Pick", options: [{ label: "A", description: "" }] }]);
 * console.assert(JSON.stringify(input).includes('"header":"Pick"'));
 * ```
 */
export function questionInput(questions: readonly HostQuestion[]): JSONObject {
  return {
    questions: questions.map((q) => {
      const entry: JSONObject = {
        question: q.question,
        header: shortHeader(q.header || q.question),
        options: q.options.map((o) => ({ label: o.label, description: o.description })),
      };
      if (q.multiple) entry.multiple = true;
      return entry;
    }),
  };
}

function shortHeader(text: string): string {
  const line = text.split("\n")[0]?.trim() ?? "";
  return line.length <= HEADER_MAX ? line : `${line.slice(0, HEADER_MAX - 1)}…`;
}

/**
 * Reads the answers out of the question tool's output text. Labels are matched against
 * each question's options (longest first, so a label with a comma stays whole); text that
 * matches no option is the typed answer. Output this reader does not recognise becomes
 * the typed answer of the first question, so nothing the person said is lost.
 *
 * @param questions The questions asked, in order.
 * @param output The tool's output text.
 * @returns One answer per question.
 *
 * @example
 * ```ts
 * import { readAnswers } from "./question-tool.ts";
 *
 * const q = { question: "Which?", header: "Which?", options: [{ label: "A", description: "" }, { label: "B", description: "" }] };
 * const [answer] = readAnswers([q], 'User has answered your questions: "Which?"="B". You can now continue with the user\'s answers in mind.');
 * console.assert(answer?.labels[0] === "B" && answer.freeform === "");
 * ```
 */
export function readAnswers(questions: readonly HostQuestion[], output: string): HostAnswer[] {
  const values = answerValues(questions, output);
  if (values === undefined) {
    return questions.map((_, index) => ({ labels: [], freeform: index === 0 ? output : "" }));
  }
  return questions.map((q, index) => splitLabels(q, values[index] ?? "Unanswered"));
}

const TAIL = ". You can now continue with the user's answers in mind.";

function answerValues(questions: readonly HostQuestion[], output: string): string[] | undefined {
  const starts: { at: number; valueAt: number }[] = [];
  let cursor = 0;
  for (const q of questions) {
    const key = `"${q.question}"="`;
    const at = output.indexOf(key, cursor);
    if (at < 0) return undefined;
    starts.push({ at, valueAt: at + key.length });
    cursor = at + key.length;
  }
  const tail = output.lastIndexOf(TAIL);
  const end = tail >= 0 ? tail : output.length;
  return starts.map((start, index) => {
    const next = starts[index + 1];
    // Each value is followed by `"` and then `, ` before the next key or the tail.
    const stop = next === undefined ? end : next.at - 2;
    const raw = output.slice(start.valueAt, stop);
    return raw.endsWith('"') ? raw.slice(0, -1) : raw;
  });
}

function splitLabels(question: HostQuestion, value: string): HostAnswer {
  if (value === "Unanswered") return { labels: [], freeform: "" };
  const labels: string[] = [];
  const free: string[] = [];
  const byLength = [...question.options].map((o) => o.label).sort((a, b) => b.length - a.length);
  let rest = value;
  while (rest.length > 0) {
    const label = byLength.find((l) => rest === l || rest.startsWith(`${l}, `));
    if (label !== undefined) {
      labels.push(label);
      rest = rest.slice(Math.min(rest.length, label.length + 2));
      continue;
    }
    const comma = rest.indexOf(", ");
    if (comma < 0) {
      free.push(rest);
      break;
    }
    free.push(rest.slice(0, comma));
    rest = rest.slice(comma + 2);
  }
  return { labels, freeform: free.join(", ") };
}
