/**
 * Use your Cursor subscription models from any Vercel AI SDK app.
 *
 * This entry is web-standard (fetch, WebCrypto, streams) and runs on Deno, Node, Bun
 * and edge runtimes.
 *
 * @module
 */
export { CURSOR_ERROR_CODES, CursorError } from "./src/core/cursor-error.ts";
export type {
  CursorErrorCode,
  CursorErrorDetail,
  CursorErrorOptions,
} from "./src/core/cursor-error.ts";
