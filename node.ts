/**
 * The entry for Node and Bun (and what OpenCode loads): the same provider as the
 * web-standard entry, with the Node adapters (HTTP/2, debug log file, `cursor-agent`
 * subprocess) wired in.
 *
 * @module
 */
export * from "./mod.ts";
