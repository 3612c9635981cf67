/**
 * Digests of the host's prompt: a short stable digest per message, proving a prompt
 * extends what a Cursor conversation already holds, and the tool results at its tail.
 *
 * @module
 */
import type {
  LanguageModelV3Message,
  LanguageModelV3Prompt,
  LanguageModelV3ToolResultPart,
} from "@ai-sdk/provider";
import { isToolMediaMessage } from "../tools/media/tool-media.ts";

/** Strings longer than this are digested by their length, head and tail (see {@link messageDigest}). */
const SAMPLED_STRING_CHARS = 256 * 1024;

/**
 * A short, stable digest of one message (role and content; provider options ignored).
 * A string longer than 256 Ki characters (a huge tool output) counts by its length and
 * its first and last 128 Ki characters, so a 50 MB result costs a few milliseconds, not
 * a pass over all of it; an edit inside such a string that keeps its length goes unseen.
 *
 * @param message A prompt message.
 * @returns A hex digest (FNV-1a 64-bit over the canonical JSON).
 */
export function messageDigest(message: LanguageModelV3Message): string {
  const content = typeof message.content === "string"
    ? message.content
    : message.content.map((part) => {
      const { providerOptions: _ignored, ...rest } = part as typeof part & {
        providerOptions?: unknown;
      };
      return rest;
    });
  const canonical = [message.role, content];
  if (!hasLongString(canonical, 0)) return fnv1a64(JSON.stringify(canonical));
  return fnv1a64(
    JSON.stringify(
      canonical,
      (_key, value: unknown) =>
        typeof value === "string" && value.length > SAMPLED_STRING_CHARS
          ? `\u0000sampled ${value.length}:${value.slice(0, SAMPLED_STRING_CHARS / 2)}${
            value.slice(-SAMPLED_STRING_CHARS / 2)
          }`
          : value,
    ),
  );
}

/** Whether a string longer than {@link SAMPLED_STRING_CHARS} sits anywhere in `value`. */
function hasLongString(value: unknown, depth: number): boolean {
  if (typeof value === "string") return value.length > SAMPLED_STRING_CHARS;
  if (typeof value !== "object" || value === null || depth > 32) return false;
  const children: unknown[] = Array.isArray(value) ? value : Object.values(value);
  return children.some((child) => hasLongString(child, depth + 1));
}

/**
 * The tool results at the tail of a prompt (after its last assistant message), also when
 * OpenCode's message with their images follows them.
 *
 * @param prompt The prompt.
 * @returns The tool result parts, in order.
 */
export function trailingToolResults(
  prompt: LanguageModelV3Prompt,
): LanguageModelV3ToolResultPart[] {
  const results: LanguageModelV3ToolResultPart[] = [];
  // OpenCode's images from those results follow them as a user message of their own.
  const end = isToolMediaMessage(prompt[prompt.length - 1]) ? prompt.length - 2 : prompt.length - 1;
  for (let i = end; i >= 0; i--) {
    const message = prompt[i];
    if (message === undefined || message.role !== "tool") break;
    for (const part of message.content) if (part.type === "tool-result") results.unshift(part);
  }
  return results;
}

/** Digests of every non-system message of a prompt. */
export function promptDigests(prompt: LanguageModelV3Prompt): string[] {
  return prompt.filter((m) => m.role !== "system").map(messageDigest);
}

/**
 * FNV-1a, 64-bit, over the UTF-8 bytes of `text`, encoded on the fly (lone surrogates as
 * U+FFFD, as `TextEncoder` does) and hashed on four 16-bit limbs so every step stays in
 * small-integer arithmetic: the BigInt form over an encoded copy made each turn's digests
 * a history-sized cost. The digests are the same.
 */
function fnv1a64(text: string): string {
  let h0 = 0x2325;
  let h1 = 0x8422;
  let h2 = 0x9ce4;
  let h3 = 0xcbf2;
  for (let i = 0; i < text.length; i++) {
    let packed = text.charCodeAt(i);
    let count = 1;
    if (packed >= 0x80) {
      const wide = utf8At(text, i);
      packed = wide.packed;
      count = wide.count;
      i += wide.width - 1;
    }
    for (let shift = (count - 1) * 8; shift >= 0; shift -= 8) {
      h0 ^= (packed >>> shift) & 0xff;
      // × 0x100000001b3: × 0x1b3, plus the hash shifted left by 40 bits.
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + (h0 << 8) + (t1 >>> 16);
      h3 = (h3 * 0x1b3 + (h1 << 8) + (t2 >>> 16)) & 0xffff;
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
    }
  }
  return [h3, h2, h1, h0].map((limb) => limb.toString(16).padStart(4, "0")).join("");
}

/**
 * The UTF-8 bytes of the non-ASCII code point at `i` (packed big-endian), their count,
 * and its UTF-16 width.
 */
function utf8At(text: string, i: number): { packed: number; count: number; width: number } {
  let code = text.charCodeAt(i);
  let width = 1;
  if (code >= 0xd800 && code <= 0xdfff) {
    const next = text.charCodeAt(i + 1);
    if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      code = 0x10000 + ((code - 0xd800) << 10) + (next - 0xdc00);
      width = 2;
    } else code = 0xfffd;
  }
  const tail = (shift: number) => 0x80 | ((code >> shift) & 0x3f);
  if (code < 0x800) return { packed: ((0xc0 | (code >> 6)) << 8) | tail(0), count: 2, width };
  if (code < 0x10000) {
    return { packed: ((0xe0 | (code >> 12)) << 16) | (tail(6) << 8) | tail(0), count: 3, width };
  }
  const packed = ((0xf0 | (code >> 18)) << 24) | (tail(12) << 16) | (tail(6) << 8) | tail(0);
  return { packed, count: 4, width };
}
