/**
 * What the parts of a Run's engine share: the writer, the answer channels, the record,
 * the clock, and the hooks that record violations and variants.
 *
 * @module
 */
import type { Replies } from "./replies.ts";
import type { RunRecord } from "../observe/records.ts";
import type { RunVariants } from "../observe/run-variants.ts";
import type { RunWriter } from "./run-writer.ts";
import type { RuleName } from "../observe/violations.ts";

/** A Run's shared I/O. */
export interface RunIo {
  readonly runId: string;
  readonly writer: RunWriter;
  readonly replies: Replies;
  readonly record: RunRecord;
  readonly now: () => number;
  /**
   * Records a violation (when the rule is enforced). When the rule ends Runs the Run is
   * being ended and `true` is returned, so synchronous callers can stop at once.
   */
  violation(rule: RuleName, message: string): boolean;
  /** Records a protocol variant the client used. */
  variant<K extends keyof RunVariants>(name: K, value: RunVariants[K]): void;
  /** Resolves after `ms` (or rejects once the Run is over). */
  sleep(ms: number): Promise<void>;
}
