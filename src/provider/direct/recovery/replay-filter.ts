/**
 * Replaying an interrupted turn without showing anything twice: a ledger of what the host
 * has seen, and a filter that lets a replayed Run's output through only past that point.
 * A replay whose text departs from what was shown cannot be spliced in and fails the turn.
 *
 * @module
 */
import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { CursorError } from "../../../core/cursor-error.ts";

/** The text and reasoning the host has been shown in this pass, across replays. */
export class VisibleLedger {
  text = "";
  reasoning = "";

  /**
   * Records one part the host received.
   *
   * @param part The stream part.
   */
  record(part: LanguageModelV3StreamPart): void {
    if (part.type === "text-delta") this.text += part.delta;
    else if (part.type === "reasoning-delta") this.reasoning += part.delta;
  }
}

/** One stream (text or reasoning) of the filter. */
interface Channel {
  readonly kind: "text" | "reasoning";
  prefix: string;
  /** Parts whose start is held back until some of their content is new. */
  readonly held: Set<string>;
}

/**
 * Passes a replayed Run's parts on, dropping what repeats the shown prefix.
 *
 * @example
 * ```ts
 * import { ReplayFilter } from "./replay-filter.ts";
 *
 * const filter = new ReplayFilter("Hello", "");
 * const parts = [
 *   ...filter.map({ type: "text-start", id: "t" }),
 *   ...filter.map({ type: "text-delta", id: "t", delta: "Hello wor" }),
 *   ...filter.map({ type: "text-delta", id: "t", delta: "ld" }),
 * ];
 * console.assert(parts.map((p) => p.type === "text-delta" ? p.delta : p.type).join("|") === "text-start| wor|ld");
 * ```
 */
export class ReplayFilter {
  readonly #text: Channel;
  readonly #reasoning: Channel;

  /**
   * @param text The text already shown.
   * @param reasoning The reasoning already shown.
   */
  constructor(text: string, reasoning: string) {
    this.#text = { kind: "text", prefix: text, held: new Set() };
    this.#reasoning = { kind: "reasoning", prefix: reasoning, held: new Set() };
  }

  /**
   * Maps one part of the replay to the parts the host should get.
   *
   * @param part The replayed part.
   * @returns The parts to emit (often none while the replay repeats what was shown).
   * @throws {CursorError} `interrupted` when the replayed text departs from the shown text.
   */
  map(part: LanguageModelV3StreamPart): LanguageModelV3StreamPart[] {
    switch (part.type) {
      case "text-start":
      case "text-delta":
      case "text-end":
        return this.#channel(this.#text, part);
      case "reasoning-start":
      case "reasoning-delta":
      case "reasoning-end":
        return this.#channel(this.#reasoning, part);
      default:
        return [part];
    }
  }

  #channel(channel: Channel, part: LanguageModelV3StreamPart & { id: string }) {
    if (part.type.endsWith("-start")) {
      if (channel.prefix === "") return [part];
      channel.held.add(part.id);
      return [];
    }
    if (part.type.endsWith("-end")) {
      return channel.held.delete(part.id) ? [] : [part];
    }
    const delta = "delta" in part ? part.delta : "";
    const shown = channel.prefix;
    let fresh: string;
    if (delta.startsWith(shown)) {
      fresh = delta.slice(shown.length);
      channel.prefix = "";
    } else if (shown.startsWith(delta)) {
      fresh = "";
      channel.prefix = shown.slice(delta.length);
    } else if (channel.kind === "text") {
      throw new CursorError(
        "interrupted",
        "The replayed answer departed from the text already shown; the turn was interrupted",
        { retryable: false },
      );
    } else {
      fresh = delta;
      channel.prefix = "";
    }
    if (fresh === "") return [];
    const out: LanguageModelV3StreamPart[] = [];
    const text = channel.kind === "text";
    if (channel.held.delete(part.id)) {
      out.push({ type: text ? "text-start" : "reasoning-start", id: part.id });
    }
    out.push({ type: text ? "text-delta" : "reasoning-delta", id: part.id, delta: fresh });
    return out;
  }
}
