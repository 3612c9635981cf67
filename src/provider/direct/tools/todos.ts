/**
 * Cursor's todo list as input for the host's todo tool (OpenCode's `todowrite`).
 *
 * @module
 */
import type { JSONObject, LanguageModelV3FunctionTool } from "@ai-sdk/provider";
import { type TodoItem, TodoStatus } from "../../../gen/agent/v1/common_pb.ts";
import { propertyName } from "./host-tools.ts";

const STATUS_NAMES: Readonly<Record<number, string>> = {
  [TodoStatus.PENDING]: "pending",
  [TodoStatus.IN_PROGRESS]: "in_progress",
  [TodoStatus.COMPLETED]: "completed",
  [TodoStatus.CANCELLED]: "cancelled",
};

/**
 * Builds the host todo tool's input from Cursor's items.
 *
 * @param todos Cursor's todo items, in order.
 * @param tool The host's todo tool (its schema names the list property).
 * @returns `{ todos: [{ content, status, priority, id }] }` under the host's property names.
 *
 * @example
 * ```ts
 * import { create } from "@bufbuild/protobuf";
 * import { TodoItemSchema, TodoStatus } from "../../../gen/agent/v1/common_pb.ts";
 * import { todoWriteInput } from "./todos.ts";
 *
 * const input = todoWriteInput(
 *   [create(TodoItemSchema, { id: "1", content: "Write tests", status: TodoStatus.IN_PROGRESS })],
 *   { type: "function", name: "todowrite", inputSchema: { type: "object", properties: { todos: {} } } },
 * );
 * console.assert(JSON.stringify(input) === '{"todos":[{"content":"Write tests","status":"in_progress","priority":"medium","id":"1"}]}');
 * ```
 */
export function todoWriteInput(
  todos: readonly TodoItem[],
  tool: LanguageModelV3FunctionTool,
): JSONObject {
  return {
    [propertyName(tool, ["todos", "items"])]: todos.map((todo) => ({
      content: todo.content,
      status: STATUS_NAMES[todo.status] ?? "pending",
      priority: "medium",
      id: todo.id,
    })),
  };
}
