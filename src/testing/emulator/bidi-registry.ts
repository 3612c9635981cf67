/**
 * RunSSE + BidiAppend bookkeeping: binds appends to their Run by request id, orders
 * them by `append_seqno` (concurrent, out-of-order appends are normal), detects
 * duplicates and gaps that never fill, and holds appends that arrive before their
 * RunSSE (bounded, expiring).
 *
 * @module
 */
import type { RunVariants } from "./records.ts";

/** Outcome of one append. */
export type AppendOutcome =
  | { readonly kind: "accepted" }
  | { readonly kind: "duplicate"; readonly seqno: number }
  | { readonly kind: "ended" }
  | { readonly kind: "overflow"; readonly message: string };

/** What the registry needs of a Run session (the Run session itself, without importing it). */
export interface AppendTarget {
  deliver(bytes: Uint8Array): void;
  variant(name: "appendEncoding", value: RunVariants["appendEncoding"]): void;
}

interface Entry<Session extends AppendTarget> {
  readonly requestId: string;
  session: Session | undefined;
  next: number;
  readonly buffered: Map<number, Uint8Array>;
  /** Messages in order, waiting for the RunSSE to attach. */
  readonly early: Uint8Array[];
  readonly encodings: Set<string>;
  gapSince: number | undefined;
  readonly createdAt: number;
}

/** Largest number of out-of-order appends held per Run. */
export const MAX_REORDER = 256;
/** Largest number of Runs waiting for their RunSSE. */
export const MAX_PENDING_RUNS = 1024;
const ENDED_MEMORY = 1024;

/** The registry of one emulator. */
export class BidiRegistry<Session extends AppendTarget> {
  readonly #entries = new Map<string, Entry<Session>>();
  readonly #ended = new Set<string>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Whether a RunSSE for this id is live. */
  isLive(requestId: string): boolean {
    return this.#entries.get(requestId)?.session !== undefined;
  }

  /** Attaches a new RunSSE session, delivering appends that came first. */
  attach(requestId: string, session: Session): void {
    this.#ended.delete(requestId);
    const entry = this.#entries.get(requestId) ?? this.#create(requestId);
    entry.session = session;
    this.#applyEncodings(entry);
    for (const message of entry.early.splice(0)) session.deliver(message);
  }

  /**
   * Takes one append.
   *
   * @param requestId The Run.
   * @param seqno Its sequence number.
   * @param message The encoded AgentClientMessage.
   * @param encoding How it travelled (`hex`, `binary`, `json`).
   */
  append(requestId: string, seqno: number, message: Uint8Array, encoding: string): AppendOutcome {
    if (this.#ended.has(requestId)) return { kind: "ended" };
    let entry = this.#entries.get(requestId);
    if (entry === undefined) {
      if (this.#entries.size >= MAX_PENDING_RUNS) {
        return {
          kind: "overflow",
          message: `More than ${MAX_PENDING_RUNS} Runs are waiting for their RunSSE`,
        };
      }
      entry = this.#create(requestId);
    }
    entry.encodings.add(encoding);
    this.#applyEncodings(entry);
    if (seqno < entry.next || entry.buffered.has(seqno)) return { kind: "duplicate", seqno };
    if (entry.buffered.size >= MAX_REORDER) {
      return {
        kind: "overflow",
        message: `More than ${MAX_REORDER} appends are waiting for seqno ${entry.next}`,
      };
    }
    entry.buffered.set(seqno, message);
    this.#drain(entry);
    return { kind: "accepted" };
  }

  #drain(entry: Entry<Session>): void {
    for (;;) {
      const message = entry.buffered.get(entry.next);
      if (message === undefined) break;
      entry.buffered.delete(entry.next);
      entry.next++;
      if (entry.session === undefined) entry.early.push(message);
      else entry.session.deliver(message);
    }
    entry.gapSince = entry.buffered.size > 0 ? entry.gapSince ?? this.#now() : undefined;
  }

  #applyEncodings(entry: Entry<Session>): void {
    if (entry.session === undefined || entry.encodings.size === 0) return;
    const [only] = entry.encodings;
    const value = entry.encodings.size > 1 ? "mixed" : only;
    if (value === "hex" || value === "binary" || value === "json" || value === "mixed") {
      entry.session.variant("appendEncoding", value);
    }
  }

  #create(requestId: string): Entry<Session> {
    const entry: Entry<Session> = {
      requestId,
      session: undefined,
      next: 0,
      buffered: new Map(),
      early: [],
      encodings: new Set(),
      gapSince: undefined,
      createdAt: this.#now(),
    };
    this.#entries.set(requestId, entry);
    return entry;
  }

  /** Forgets a Run that ended; later appends for it are acknowledged and ignored. */
  ended(requestId: string): void {
    this.#entries.delete(requestId);
    this.#ended.add(requestId);
    if (this.#ended.size > ENDED_MEMORY) {
      const oldest = this.#ended.values().next().value;
      if (oldest !== undefined) this.#ended.delete(oldest);
    }
  }

  /**
   * Periodic check: Runs whose sequence gap stayed open too long, and appends whose
   * RunSSE never came.
   *
   * @returns Sessions with an expired gap (the caller reports them).
   */
  sweep(gapTimeoutMs: number, orphanTimeoutMs: number): { session: Session; missing: number }[] {
    const now = this.#now();
    const expired: { session: Session; missing: number }[] = [];
    for (const [requestId, entry] of this.#entries) {
      if (entry.session === undefined) {
        if (now - entry.createdAt > orphanTimeoutMs) this.#entries.delete(requestId);
        continue;
      }
      if (entry.gapSince !== undefined && now - entry.gapSince > gapTimeoutMs) {
        entry.gapSince = undefined;
        expired.push({ session: entry.session, missing: entry.next });
      }
    }
    return expired;
  }

  /** Runs tracked (live or waiting for their RunSSE). */
  get size(): number {
    return this.#entries.size;
  }

  /** Forgets everything. */
  clear(): void {
    this.#entries.clear();
    this.#ended.clear();
  }
}
