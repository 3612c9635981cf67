/**
 * Typed JSON values and the few readers the stream-json parser needs to narrow
 * `unknown` input without casts to `any`.
 *
 * @module
 */

/** Any value `JSON.parse` can return. */
export type JsonValue = null | boolean | number | string | JsonValue[] | JsonObject;

/** A JSON object. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/**
 * Parses JSON text.
 *
 * @param text The text of one JSON document.
 * @returns The value, or the parser's complaint.
 */
export function parseJson(
  text: string,
): { readonly ok: true; readonly value: JsonValue } | {
  readonly ok: false;
  readonly error: string;
} {
  try {
    // JSON.parse only ever produces JsonValue shapes.
    return { ok: true, value: JSON.parse(text) as JsonValue };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * Whether a value is a plain JSON object (not null, not an array).
 *
 * @param value Anything.
 * @returns True for objects.
 */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Reads a string field. */
export function readString(object: JsonObject, key: string): string | undefined {
  const value = object[key];
  return typeof value === "string" ? value : undefined;
}

/** Reads a finite number field. */
export function readNumber(object: JsonObject, key: string): number | undefined {
  const value = object[key];
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

/** Reads a boolean field. */
export function readBoolean(object: JsonObject, key: string): boolean | undefined {
  const value = object[key];
  return typeof value === "boolean" ? value : undefined;
}

/** Reads an object field. */
export function readObject(object: JsonObject, key: string): JsonObject | undefined {
  const value = object[key];
  return isJsonObject(value) ? value : undefined;
}

/** Reads the first of several keys that holds a finite number. */
export function readFirstNumber(object: JsonObject, keys: readonly string[]): number | undefined {
  for (const key of keys) {
    const value = readNumber(object, key);
    if (value !== undefined) return value;
  }
  return undefined;
}

/**
 * Serialises a value with object keys sorted, so equal values give equal text.
 *
 * @param value Any JSON-compatible value (`undefined` members are dropped).
 * @returns Canonical JSON text.
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, member]) => `${JSON.stringify(key)}:${canonicalJson(member)}`);
    return `{${entries.join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}
