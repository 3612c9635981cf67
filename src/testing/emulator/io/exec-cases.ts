/**
 * Which result case answers which request case, on the exec channel (field number of
 * the result = field number of the request, except the Pi family at +1 and
 * `mini_swe_agent_bash` 52 → 55) and on the interaction channel (same numbers).
 * Derived from the schema descriptors, so it follows the .proto files.
 *
 * @module
 */
import type { DescMessage } from "@bufbuild/protobuf";
import { ExecClientMessageSchema, ExecServerMessageSchema } from "../../../gen/agent/v1/exec_pb.ts";
import {
  InteractionQuerySchema,
  InteractionResponseSchema,
} from "../../../gen/agent/v1/interaction_query_pb.ts";

function oneofCases(schema: DescMessage, oneof: string): Map<number, string> {
  const cases = new Map<number, string>();
  for (const field of schema.fields) {
    if (field.oneof?.name === oneof) cases.set(field.number, field.localName);
  }
  return cases;
}

const EXEC_REQUESTS = oneofCases(ExecServerMessageSchema, "message");
const EXEC_RESULTS = oneofCases(ExecClientMessageSchema, "message");
const QUERIES = oneofCases(InteractionQuerySchema, "query");
const RESPONSES = oneofCases(InteractionResponseSchema, "result");

function numberOf(cases: Map<number, string>, name: string): number | undefined {
  for (const [number, localName] of cases) if (localName === name) return number;
  return undefined;
}

/** The result field number for an exec request field number. */
export function execResultNumber(requestNumber: number): number {
  if (requestNumber >= 45 && requestNumber <= 51) return requestNumber + 1;
  if (requestNumber === 52) return 55;
  return requestNumber;
}

/**
 * The result case (local name) that answers an exec request case.
 *
 * @param requestCase e.g. `readArgs`.
 * @returns e.g. `readResult`, or `undefined` when the schema has no matching result.
 */
export function expectedExecResult(requestCase: string): string | undefined {
  const number = numberOf(EXEC_REQUESTS, requestCase);
  return number === undefined ? undefined : EXEC_RESULTS.get(execResultNumber(number));
}

/**
 * The response case that answers an interaction query case.
 *
 * @param queryCase e.g. `askQuestionInteractionQuery`.
 * @returns e.g. `askQuestionInteractionResponse`.
 */
export function expectedInteractionResponse(queryCase: string): string | undefined {
  const number = numberOf(QUERIES, queryCase);
  return number === undefined ? undefined : RESPONSES.get(number);
}
