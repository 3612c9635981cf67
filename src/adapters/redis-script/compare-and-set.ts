/**
 * The compare-and-set script both Redis-protocol stores run (`./stores/redis` over the
 * `redis` client, `./stores/upstash` over Upstash's REST API): one hash per conversation
 * holding the value (`d`) and its version (`v`); checking the version, replacing both and
 * renewing the key's lifetime are one `EVAL`, a single atomic step on the server.
 *
 * @module
 */

/**
 * KEYS[1] the hash; ARGV: condition (`*` none, `` nothing stored, else a version), the
 * new version, the value, the lifetime in ms. Returns 1 when written, 0 on conflict.
 */
export const COMPARE_AND_SET_SCRIPT = `
local current = redis.call('HGET', KEYS[1], 'v')
if ARGV[1] ~= '*' and current and current ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'd', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
`;

/**
 * The script's condition argument for a write's `ifVersion`.
 *
 * @param ifVersion `undefined`: none; `null`: nothing stored; else the expected version.
 * @returns `*`, the empty string or the version.
 *
 * @example
 * ```ts
 * import { compareAndSetCondition } from "./compare-and-set.ts";
 *
 * console.assert(compareAndSetCondition(undefined) === "*");
 * console.assert(compareAndSetCondition(null) === "");
 * console.assert(compareAndSetCondition("v1") === "v1");
 * ```
 */
export function compareAndSetCondition(ifVersion: string | null | undefined): string {
  return ifVersion === undefined ? "*" : ifVersion ?? "";
}
