/**
 * The `{ kind: "unknown" }` view of a server message whose oneof had no known
 * case set: where it was, the unknown field numbers it carried, and whether
 * the server waits for an answer.
 *
 * @module
 */

import type { Message } from "@bufbuild/protobuf";
import type { AwaitedReply, ServerMessageView, UnknownLocation } from "./server-message-view.ts";

/** The `unknown` view of `message`, whose oneof at `where` had no known case set. */
export function unknownCase(
  where: UnknownLocation,
  message: Message,
  awaitedReply: AwaitedReply | undefined,
): ServerMessageView {
  const unknownFieldNumbers = fieldNumbersOf(message);
  return {
    kind: "unknown",
    where,
    detail: describeUnknown(where, unknownFieldNumbers),
    unknownFieldNumbers,
    awaitedReply,
  };
}

function fieldNumbersOf(message: Message): number[] {
  const numbers = (message.$unknown ?? []).map((field) => field.no);
  return [...new Set(numbers)].sort((a, b) => a - b);
}

function describeUnknown(where: UnknownLocation, fieldNumbers: readonly number[]): string {
  if (fieldNumbers.length === 0) return `No case of "${where}" is set`;
  return `No known case of "${where}" is set; unknown field numbers: ${fieldNumbers.join(", ")}`;
}
