/**
 * Checks a JSON value against a JSON Schema, for structured output the model was only
 * asked to follow (Cursor cannot enforce a schema). The checked keywords are the ones
 * AI SDK schemas (zod, valibot, `jsonSchema()`) produce: `type` (with `integer` and type
 * lists), `enum`, `const`, `properties`, `required`, `additionalProperties`, `items`
 * (one schema or a tuple), `anyOf` / `oneOf` / `allOf`, the length and range bounds
 * and local `$ref`s into `$defs` / `definitions`. Other keywords (formats, patterns)
 * are not checked.
 *
 * @module
 */

/** A JSON Schema as a plain object (or a boolean schema). */
export type JsonSchemaLike = boolean | { readonly [keyword: string]: unknown };

type Schema = { readonly [keyword: string]: unknown };

/**
 * The first place where `value` breaks `schema`, or `undefined` when it matches.
 *
 * @param value The parsed JSON value.
 * @param schema The schema.
 * @returns A message like `$.name: expected string, got number`, or `undefined`.
 *
 * @example
 * ```ts
 * import { schemaMismatch } from "./json-schema-check.ts";
 *
 * const schema = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
 * console.assert(schemaMismatch({ name: "Ada" }, schema) === undefined);
 * console.assert(schemaMismatch({}, schema) === '$: missing required property "name"');
 * ```
 */
export function schemaMismatch(value: unknown, schema: JsonSchemaLike): string | undefined {
  return check(value, schema, "$", typeof schema === "object" ? schema : {});
}

function check(
  value: unknown,
  schema: JsonSchemaLike,
  path: string,
  root: Schema,
): string | undefined {
  if (schema === true) return undefined;
  if (schema === false) return `${path}: no value is allowed here`;
  const ref = schema.$ref;
  if (typeof ref === "string") {
    const target = resolveRef(ref, root);
    if (target === undefined) return undefined;
    return check(value, target, path, root);
  }
  return checkType(value, schema, path) ?? checkValues(value, schema, path) ??
    checkCombinators(value, schema, path, root) ?? checkObject(value, schema, path, root) ??
    checkArray(value, schema, path, root) ?? checkBounds(value, schema, path);
}

function resolveRef(ref: string, root: Schema): JsonSchemaLike | undefined {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (ref === "#") return root;
  if (match === null) return undefined;
  const defs = root[match[1] ?? ""] as Record<string, JsonSchemaLike> | undefined;
  return defs?.[decodeURIComponent(match[2] ?? "")];
}

function typeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function checkType(value: unknown, schema: Schema, path: string): string | undefined {
  const declared = schema.type;
  if (declared === undefined) return undefined;
  const types = Array.isArray(declared) ? declared : [declared];
  const actual = typeOf(value);
  const matches = types.some((type) =>
    type === actual || (type === "integer" && Number.isInteger(value)) ||
    (type === "number" && actual === "number")
  );
  return matches ? undefined : `${path}: expected ${types.join(" or ")}, got ${actual}`;
}

function checkValues(value: unknown, schema: Schema, path: string): string | undefined {
  if ("const" in schema && !sameJson(value, schema.const)) {
    return `${path}: expected ${JSON.stringify(schema.const)}`;
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => sameJson(value, option))) {
    return `${path}: expected one of ${schema.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  }
  return undefined;
}

function checkCombinators(
  value: unknown,
  schema: Schema,
  path: string,
  root: Schema,
): string | undefined {
  for (const part of asSchemas(schema.allOf)) {
    const failure = check(value, part, path, root);
    if (failure !== undefined) return failure;
  }
  for (const keyword of ["anyOf", "oneOf"] as const) {
    const options = asSchemas(schema[keyword]);
    if (options.length === 0) continue;
    const failures = options.map((option) => check(value, option, path, root));
    if (!failures.includes(undefined)) return failures[0];
  }
  return undefined;
}

function checkObject(
  value: unknown,
  schema: Schema,
  path: string,
  root: Schema,
): string | undefined {
  if (typeOf(value) !== "object") return undefined;
  const object = value as Record<string, unknown>;
  for (const name of Array.isArray(schema.required) ? schema.required : []) {
    if (typeof name === "string" && !Object.hasOwn(object, name)) {
      return `${path}: missing required property ${JSON.stringify(name)}`;
    }
  }
  const properties = (schema.properties ?? {}) as Record<string, JsonSchemaLike>;
  for (const [name, item] of Object.entries(object)) {
    const where = `${path}.${name}`;
    const declared = properties[name];
    if (declared !== undefined) {
      const failure = check(item, declared, where, root);
      if (failure !== undefined) return failure;
    } else if (schema.additionalProperties === false) {
      return `${path}: unexpected property ${JSON.stringify(name)}`;
    } else if (typeof schema.additionalProperties === "object") {
      const failure = check(item, schema.additionalProperties as JsonSchemaLike, where, root);
      if (failure !== undefined) return failure;
    }
  }
  return undefined;
}

function checkArray(
  value: unknown,
  schema: Schema,
  path: string,
  root: Schema,
): string | undefined {
  if (!Array.isArray(value)) return undefined;
  const items = schema.items;
  for (const [index, item] of value.entries()) {
    const itemSchema = Array.isArray(items)
      ? (items[index] as JsonSchemaLike | undefined)
      : (items as JsonSchemaLike | undefined);
    if (itemSchema === undefined) continue;
    const failure = check(item, itemSchema, `${path}[${index}]`, root);
    if (failure !== undefined) return failure;
  }
  return undefined;
}

function checkBounds(value: unknown, schema: Schema, path: string): string | undefined {
  const size = typeof value === "string"
    ? { n: [...value].length, min: schema.minLength, max: schema.maxLength, unit: "characters" }
    : Array.isArray(value)
    ? { n: value.length, min: schema.minItems, max: schema.maxItems, unit: "items" }
    : undefined;
  if (size !== undefined) {
    if (typeof size.min === "number" && size.n < size.min) {
      return `${path}: expected at least ${size.min} ${size.unit}, got ${size.n}`;
    }
    if (typeof size.max === "number" && size.n > size.max) {
      return `${path}: expected at most ${size.max} ${size.unit}, got ${size.n}`;
    }
  }
  if (typeof value !== "number") return undefined;
  if (typeof schema.minimum === "number" && value < schema.minimum) {
    return `${path}: expected at least ${schema.minimum}, got ${value}`;
  }
  if (typeof schema.maximum === "number" && value > schema.maximum) {
    return `${path}: expected at most ${schema.maximum}, got ${value}`;
  }
  return undefined;
}

function asSchemas(value: unknown): JsonSchemaLike[] {
  return Array.isArray(value) ? value as JsonSchemaLike[] : [];
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
