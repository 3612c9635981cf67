/**
 * The app's side of `scale-out.bench.ts`: conversations of several turns sent through the
 * proxy, as an AI SDK chat client does — each request carries the whole history and the
 * session id; when a step ends with tool calls the app runs the tool itself and sends the
 * result in the next request (which may land on another instance). A request that fails
 * with a retryable error (the proxy's 502, a cut response, the route's 503) is sent again;
 * any other failure is recorded and the turn dropped from the history.
 *
 * Each user message carries a marker (`@@c3.t2@@`) that the bench looks for in Cursor's
 * context; tool turns ask the emulator's model for the `lookup` tool, whose result names
 * the turn too (`record k3-2`).
 *
 * @module
 */

/** An AI SDK `ModelMessage`, as the route takes and answers them (JSON). */
type Message = Record<string, unknown>;

/** What the app saw of one conversation. */
export interface ClientConversation {
  readonly index: number;
  readonly sessionId: string;
  /** Turns the app saw complete, in order. */
  readonly completed: number[];
  /** Turns that failed visibly, and whether with a retryable error (retried until given up). */
  readonly failed: { turn: number; retryable: boolean; error: string }[];
  /** How often the app ran its tool for each key. */
  readonly toolRuns: Map<string, number>;
  /** Requests sent again after a retryable failure. */
  retries: number;
}

/** The user message of turn `turn` (tool turns call `lookup`). */
export function userText(conversation: number, turn: number, withTool: boolean): string {
  const marker = `@@c${conversation}.t${turn}@@`;
  return withTool
    ? `${marker} Look the record up, please.\n::mcp lookup {"key":"k${conversation}-${turn}"}`
    : `${marker} Note this down.\n::text Noted.`;
}

/** Whether turn `turn` has a tool step: turns 1, 3, 5, … */
export const hasTool = (turn: number): boolean => turn % 2 === 1;

/** The app's tool: its output names its key. */
export const toolOutput = (key: string): string => `record ${key} is fine`;

type Answer =
  | { ok: true; messages: Message[]; finishReason: string; toolCalls: ToolCall[] }
  | { ok: false; retryable: boolean; error: string };
interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: { key?: string };
}

async function post(url: string, sessionId: string, messages: Message[]): Promise<Answer> {
  let response: Response;
  try {
    response = await fetch(`${url}/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sessionId, messages }),
      signal: AbortSignal.timeout(60_000),
    });
    const text = await response.text();
    if (response.status === 200) return { ok: true, ...JSON.parse(text) };
    const retryable = response.status === 502 || response.status === 503;
    return { ok: false, retryable, error: `${response.status} ${text.slice(0, 300)}` };
  } catch (error) {
    // The connection was refused or the response cut: the instance died under it.
    return { ok: false, retryable: true, error: String(error) };
  }
}

/** Sends one request, again after each retryable failure (up to `attempts` in all). */
async function send(
  url: string,
  conversation: ClientConversation,
  messages: Message[],
  attempts = 8,
): Promise<Answer> {
  for (let attempt = 1;; attempt++) {
    const answer = await post(url, conversation.sessionId, messages);
    if (answer.ok || !answer.retryable || attempt >= attempts) return answer;
    conversation.retries++;
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

/** Plays turn `turn` of a conversation; the history gains it only when it completed. */
export async function playTurn(
  url: string,
  conversation: ClientConversation,
  history: Message[],
  turn: number,
): Promise<void> {
  const messages: Message[] = [
    ...history,
    { role: "user", content: userText(conversation.index, turn, hasTool(turn)) },
  ];
  for (let leg = 0; leg < 4; leg++) {
    const answer = await send(url, conversation, messages);
    if (!answer.ok) {
      conversation.failed.push({ turn, retryable: answer.retryable, error: answer.error });
      return;
    }
    messages.push(...answer.messages);
    if (answer.finishReason !== "tool-calls") {
      history.splice(0, history.length, ...messages);
      conversation.completed.push(turn);
      return;
    }
    const results = answer.toolCalls.map((call) => {
      const key = call.input.key ?? "";
      conversation.toolRuns.set(key, (conversation.toolRuns.get(key) ?? 0) + 1);
      return {
        type: "tool-result",
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        output: { type: "text", value: toolOutput(key) },
      };
    });
    messages.push({ role: "tool", content: results });
  }
  conversation.failed.push({ turn, retryable: false, error: "more than 4 steps" });
}

/** A fresh conversation of the app. */
export function newConversation(index: number, variant: string): ClientConversation {
  return {
    index,
    sessionId: `bench-${variant}-${index}-${crypto.randomUUID().slice(0, 8)}`,
    completed: [],
    failed: [],
    toolRuns: new Map(),
    retries: 0,
  };
}
