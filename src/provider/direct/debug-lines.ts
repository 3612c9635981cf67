/**
 * The debug log's line formats (see the cache and token log runbook): `key=value`
 * fields separated by spaces so `rg` and `awk` can read them. No tokens, no prompts.
 *
 * @module
 */
import { sha256Hex } from "../../core/bytes.ts";
import type { FinishLog } from "./finish.ts";

/** Facts of an outbound Run. */
export interface OutboundRunFacts {
  readonly sessionKey: string;
  readonly conversationId: string;
  readonly model: string;
  readonly transport: string;
  readonly checkpointLen: number;
  readonly requestContextReused: boolean;
  readonly requestContextBytes: Uint8Array;
  readonly systemPromptSent: boolean;
  readonly reset?: boolean;
  readonly resume?: boolean;
}

/**
 * The `outbound Run:` line.
 *
 * @param facts The Run's identity and continuity facts.
 * @returns The line text.
 */
export function outboundRunLine(facts: OutboundRunFacts): string {
  return [
    "outbound Run:",
    `sessionKey=${facts.sessionKey}`,
    `conversationId=${facts.conversationId}`,
    `model=${facts.model}`,
    `transport=${facts.transport}`,
    `reset=${facts.reset ?? false}`,
    `resume=${facts.resume ?? false}`,
    `checkpointLen=${facts.checkpointLen}`,
    `requestContext=${facts.requestContextReused ? "reused" : "built"}`,
    `requestContextLen=${facts.requestContextBytes.length}`,
    `systemPromptSent=${facts.systemPromptSent}`,
  ].join(" ");
}

/**
 * The `finish:` line.
 *
 * @param log The finish facts.
 * @returns The line text.
 */
export function finishLine(log: FinishLog): string {
  const fields = [
    `finish: reason=${log.reason}`,
    `source=${log.source}`,
    `v3In=${log.v3In}`,
    `v3Out=${log.v3Out}`,
    `v3CacheRead=${log.v3CacheRead}`,
    `v3CacheWrite=${log.v3CacheWrite}`,
  ];
  if (log.raw && log.reason === "stop") {
    fields.push(
      `rawIn=${log.raw.input}`,
      `rawOut=${log.raw.output}`,
      `rawCacheRead=${log.raw.cacheRead}`,
      `rawCacheWrite=${log.raw.cacheWrite}`,
      `rawReasoning=${log.raw.reasoning}`,
      `occupancyPrefixCache=${log.occupancyPrefixCache}`,
    );
  }
  return fields.join(" ");
}

/**
 * First 16 hex digits of a SHA-256, for hash fields on log lines.
 *
 * @param bytes What to hash.
 * @returns 16 hex digits.
 */
export async function shortHash(bytes: Uint8Array | string): Promise<string> {
  return (await sha256Hex(bytes)).slice(0, 16);
}
