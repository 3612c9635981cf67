/**
 * The ranks of the rooms inside `src/provider/direct`, as data, and a checker: a file may
 * import its own room or a room of a lower rank, never one of its own rank or above, so
 * the backend's folders form a one-way graph (ADR 203). `turn-types.ts`, rank 0, holds
 * types only and imports nothing of the backend's own.
 *
 * @module
 */
import { importsOf } from "./graph-rules.ts";
import type { Violation } from "./layers.ts";

/** The folder whose rooms are ranked. */
export const RANKED_AREA = "src/provider/direct/";

/** The rooms (folders, or files directly in the area), lowest first. */
export const DIRECT_ROOM_RANKS: Readonly<Record<string, number>> = {
  "turn-types.ts": 0,
  diagnostics: 1,
  billing: 2,
  tools: 2,
  interactions: 3,
  turn: 4,
  config: 5,
  call: 6,
  recovery: 6,
  "turn-plan": 7,
  run: 8,
  held: 9,
  "direct-backend.ts": 10,
};

/** The rooms whose files may hold nothing but types. */
export const TYPES_ONLY_ROOMS: readonly string[] = ["turn-types.ts"];

/** The room a repository-relative path sits in, when it is inside the ranked area. */
export function roomOf(path: string): string | undefined {
  if (!path.startsWith(RANKED_AREA)) return undefined;
  return path.slice(RANKED_AREA.length).split("/")[0];
}

/**
 * Checks one file of the ranked area: every import of another room goes down, every room
 * is ranked, and a types-only room declares and imports types alone.
 *
 * @param path Repository-relative path of the file.
 * @param source Its text.
 * @returns The violations found (none for a file outside the area).
 */
export function checkRoomRanks(path: string, source: string): Violation[] {
  const room = roomOf(path);
  if (room === undefined) return [];
  const rank = DIRECT_ROOM_RANKS[room];
  if (rank === undefined) {
    return [{ file: path, line: 1, message: `room ${room} has no rank in DIRECT_ROOM_RANKS` }];
  }
  const violations: Violation[] = [];
  for (const ref of importsOf(path, source)) {
    const target = ref.target === undefined ? undefined : roomOf(ref.target);
    if (target === undefined || target === room) continue;
    const targetRank = DIRECT_ROOM_RANKS[target];
    if (targetRank !== undefined && targetRank < rank) continue;
    const why = targetRank === undefined
      ? "an unranked room"
      : targetRank === rank
      ? "a room of the same rank"
      : "a higher room";
    violations.push({
      file: path,
      line: ref.line,
      message: `room ${room} (rank ${rank}) imports ${why} ${target} (${
        JSON.stringify(ref.target)
      })`,
    });
  }
  if (TYPES_ONLY_ROOMS.includes(room)) violations.push(...typesOnlyProblems(path, source));
  return violations;
}

const RUNTIME_DECLARATION =
  /^\s*export\s+(?:default\s+)?(?:async\s+)?(?:function|class|const|let|var|enum)\b/;
const VALUE_IMPORT = /^\s*import\s+(?!type\b)/;

function typesOnlyProblems(path: string, source: string): Violation[] {
  const found: Violation[] = [];
  source.split("\n").forEach((text, index) => {
    if (RUNTIME_DECLARATION.test(text)) {
      found.push({ file: path, line: index + 1, message: "a types-only room declares a value" });
    } else if (VALUE_IMPORT.test(text)) {
      found.push({ file: path, line: index + 1, message: "a types-only room imports a value" });
    }
  });
  return found;
}
