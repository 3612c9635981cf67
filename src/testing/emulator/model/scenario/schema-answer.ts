/**
 * The emulated model's answer to a structured-output request: when the user message
 * carries a JSON Schema between `<json-schema>` tags (the provider's instruction for
 * `generateObject` and `Output.object`) and no directives, the model answers with one
 * JSON value shaped by the schema — every declared property, the first `enum` or
 * `const` value, bounds respected — so structured output is testable end to end.
 *
 * @module
 */

type Schema = { readonly [keyword: string]: unknown };

/**
 * The schema a user message asks the answer to match, if it carries one.
 *
 * @param userText The newest user message.
 * @returns The schema, or `undefined`.
 *
 * @example
 * ```ts
 * import { requestedSchema } from "./schema-answer.ts";
 *
 * const schema = requestedSchema('Answer in JSON: <json-schema>{"type":"string"}</json-schema>');
 * console.assert((schema as { type: string }).type === "string");
 * ```
 */
export function requestedSchema(userText: string): unknown {
  const matches = [...userText.matchAll(/<json-schema>([\s\S]*?)<\/json-schema>/g)];
  const last = matches[matches.length - 1]?.[1];
  if (last === undefined) return undefined;
  try {
    return JSON.parse(last);
  } catch {
    return undefined;
  }
}

/**
 * A JSON value shaped by a schema.
 *
 * @param schema The schema.
 * @returns The value.
 *
 * @example
 * ```ts
 * import { sampleForSchema } from "./schema-answer.ts";
 *
 * const value = sampleForSchema({ type: "object", properties: { n: { type: "integer", minimum: 3 } } });
 * console.assert(JSON.stringify(value) === '{"n":3}');
 * ```
 */
export function sampleForSchema(schema: unknown): unknown {
  return sample(schema, typeof schema === "object" && schema !== null ? schema as Schema : {}, 0);
}

function sample(schema: unknown, root: Schema, depth: number): unknown {
  if (typeof schema !== "object" || schema === null || depth > 12) return null;
  const s = schema as Schema;
  if (typeof s.$ref === "string") return sample(resolve(s.$ref, root), root, depth + 1);
  if ("const" in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  for (const keyword of ["anyOf", "oneOf", "allOf"]) {
    const options = s[keyword];
    if (Array.isArray(options) && options.length > 0) {
      const chosen = options.find((option) => (option as Schema)?.type !== "null") ?? options[0];
      return sample(chosen, root, depth + 1);
    }
  }
  const declared = Array.isArray(s.type) ? s.type.find((t) => t !== "null") ?? s.type[0] : s.type;
  switch (declared ?? (s.properties === undefined ? undefined : "object")) {
    case "object":
      return sampleObject(s, root, depth);
    case "array":
      return sampleArray(s, root, depth);
    case "string":
      return sampleString(s);
    case "integer":
      return typeof s.minimum === "number" ? Math.ceil(s.minimum) : 1;
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 1.5;
    case "boolean":
      return true;
    case "null":
      return null;
    default:
      return "example";
  }
}

function sampleObject(schema: Schema, root: Schema, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  for (const [name, property] of Object.entries(properties)) {
    out[name] = sample(property, root, depth + 1);
  }
  return out;
}

function sampleArray(schema: Schema, root: Schema, depth: number): unknown[] {
  if (Array.isArray(schema.items)) return schema.items.map((item) => sample(item, root, depth + 1));
  const count = Math.max(typeof schema.minItems === "number" ? schema.minItems : 1, 1);
  const capped = typeof schema.maxItems === "number" ? Math.min(count, schema.maxItems) : count;
  return Array.from({ length: capped }, () => sample(schema.items, root, depth + 1));
}

function sampleString(schema: Schema): string {
  const min = typeof schema.minLength === "number" ? schema.minLength : 0;
  const max = typeof schema.maxLength === "number" ? schema.maxLength : Infinity;
  const text = "example".padEnd(min, "x");
  return text.length > max ? text.slice(0, max) : text;
}

function resolve(ref: string, root: Schema): unknown {
  if (ref === "#") return root;
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (match === null) return undefined;
  const defs = root[match[1] ?? ""] as Record<string, unknown> | undefined;
  return defs?.[decodeURIComponent(match[2] ?? "")];
}
