/**
 * A host's read tool shows a file as display text: OpenCode's drops every `\r` and the
 * byte order mark. An edit built from that text would turn a CRLF file into LF. Before
 * an edit, the file's real bytes are read through the host's own (permission-checked)
 * shell tool: its size and its bytes in base64, which no host decorates or trims.
 *
 * @module
 */
import { parseWrappedOutput, wrapCommand } from "../shell/shell-wrapper.ts";

/** A text file as its bytes say: without a UTF-8 byte order mark, every `\r` kept. */
export interface RawFile {
  /** The file starts with a UTF-8 byte order mark. */
  readonly bom: boolean;
  /** The text after the byte order mark, line endings as they are. */
  readonly text: string;
}

/** Files above this size are not probed (the host would cut the output). */
export const PROBE_MAX_BYTES = 256 * 1024;

/**
 * The shell command that prints a file's size and its bytes in base64 (or `absent`).
 *
 * @param path The file.
 * @param nonce A unique token for the exit marker.
 * @returns The command for the host's shell tool.
 *
 * @example
 * ```ts
 * import { probeCommand } from "./raw-file.ts";
 *
 * console.assert(probeCommand("/ws/a b.txt", "n1").includes("'/ws/a b.txt'"));
 * ```
 */
export function probeCommand(path: string, nonce: string): string {
  const quoted = `'${path.replaceAll("'", `'\\''`)}'`;
  const body = [
    `f=${quoted}`,
    `if [ ! -f "$f" ]; then echo absent`,
    `elif [ "$(wc -c < "$f")" -gt ${PROBE_MAX_BYTES} ]; then echo too-large`,
    `else wc -c < "$f"; base64 < "$f"; fi`,
  ].join("\n");
  return wrapCommand(body, nonce);
}

/**
 * Reads a probe's output.
 *
 * @param output The host shell tool's output.
 * @param nonce The nonce the probe was wrapped with.
 * @returns The file, `null` when it does not exist, or `undefined` when the output cannot
 *   be trusted (cut, failed, not UTF-8, too large): the caller falls back to display text.
 *
 * @example
 * ```ts
 * import { parseProbe } from "./raw-file.ts";
 *
 * const file = parseProbe("4\nYQ0KYg==\n\n__CURSOR_EXEC_EXIT_n1=0__\n", "n1");
 * console.assert(file?.text === "a\r\nb");
 * ```
 */
export function parseProbe(output: string, nonce: string): RawFile | null | undefined {
  const parsed = parseWrappedOutput(output, nonce);
  if (parsed.exitCode !== 0) return undefined;
  const lines = parsed.output.trim().split("\n");
  if (lines[0]?.trim() === "absent" && lines.length === 1) return null;
  const size = Number(lines[0]?.trim());
  if (!Number.isSafeInteger(size) || size < 0) return undefined;
  const encoded = lines.slice(1).join("").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) return undefined;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
  } catch {
    return undefined;
  }
  if (bytes.length !== size) return undefined;
  return decodeRawFile(bytes);
}

/**
 * Decodes a file's bytes as UTF-8, keeping line endings and noting a byte order mark.
 *
 * @param bytes The file's bytes.
 * @returns The file, or `undefined` when it is not UTF-8 text.
 *
 * @example
 * ```ts
 * import { decodeRawFile } from "./raw-file.ts";
 *
 * const file = decodeRawFile(new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a]));
 * console.assert(file?.bom === true && file.text === "a\r\n");
 * ```
 */
export function decodeRawFile(bytes: Uint8Array): RawFile | undefined {
  const bom = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })
      .decode(bom ? bytes.subarray(3) : bytes);
    return text.includes("\0") ? undefined : { bom, text };
  } catch {
    return undefined;
  }
}
