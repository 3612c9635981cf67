/**
 * Reads Cursor's protobuf descriptors out of the installed `@cursor/sdk` bundle (see
 * `scripts/lib/cursor-sdk-install.ts`) and returns them as plain data.
 *
 * The bundle carries Cursor's generated protobuf-es v1 code as webpack module factories
 * (`"../proto/dist/generated/agent/v1/<file>_pb.js"(t,r,e){...}`). This module cuts each
 * factory's source out of the bundle, evaluates it with a small `require` shim that hands
 * it the SDK's own `@bufbuild/protobuf` 1.x (and the other factories, lazily), and reads the
 * resulting message types' `typeName` and `fields.list()`. Nothing of the SDK is copied into
 * the project: the data lives in memory only.
 *
 * @module
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** One field of a Cursor message. */
export interface CursorField {
  readonly number: number;
  readonly name: string;
  readonly kind: "scalar" | "message" | "enum" | "map";
  /** The protobuf scalar type number (9 string, 8 bool, ...), for scalars and map values that are scalars. */
  readonly scalar?: number;
  /** The referenced message or enum full name (for a map: the value's type, if not scalar). */
  readonly typeName?: string;
  /** For maps: the key's scalar type number. */
  readonly mapKey?: number;
  readonly label: "repeated" | "optional" | "implicit";
  readonly oneof?: string;
}

/** Cursor's messages, by full name (`agent.v1.SubagentArgs`, nested as `agent.v1.Outer.Inner`). */
export type CursorDescriptors = Map<string, readonly CursorField[]>;

const MODULE_KEY = /"((?:\.\.?\/)[^"\n]{1,300}?\.(?:js|ts|mjs|cjs))"\(t,r,e\)\{/g;

/** Cuts the webpack module factories (by their string id) out of one bundle's text. */
function factories(text: string): Map<string, string> {
  const starts: { id: string; at: number; body: number }[] = [];
  for (const match of text.matchAll(MODULE_KEY)) {
    starts.push({ id: match[1] ?? "", at: match.index, body: match.index + match[0].length });
  }
  const out = new Map<string, string>();
  for (const [i, { id, body }] of starts.entries()) {
    if (!id.endsWith("_pb.js") && !id.endsWith("compact.js")) continue;
    const limit = starts[i + 1]?.at ?? Math.min(text.length, body + 2_000_000);
    // The factory ends at a closing brace before the next id; the first (from the end)
    // whose body parses is it.
    let end = text.lastIndexOf("}", limit);
    while (end > body) {
      const source = text.slice(body, end);
      try {
        new Function("t", "r", "e", source);
        out.set(id, source);
        break;
      } catch {
        end = text.lastIndexOf("}", end - 1);
      }
    }
  }
  return out;
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** Evaluates the factories and returns the exports of every `_pb.js` module. */
function evaluate(sources: Map<string, string>, protobuf: unknown): Map<string, Any> {
  const cache = new Map<string, Any>();
  const require = (id: string): Any => {
    if (id === "@bufbuild/protobuf") return protobuf;
    const hit = cache.get(id);
    if (hit) return hit;
    const source = sources.get(id);
    const exports: Record<string, unknown> = {};
    cache.set(id, exports);
    if (source === undefined) return exports; // not a protobuf module: nothing we need
    const shim = Object.assign((next: string) => require(next), {
      d(target: Record<string, unknown>, getters: Record<string, () => unknown>) {
        for (const [key, get] of Object.entries(getters)) {
          Object.defineProperty(target, key, { enumerable: true, get });
        }
      },
      r(target: Record<string, unknown>) {
        Object.defineProperty(target, "__esModule", { value: true });
      },
    });
    new Function("t", "r", "e", source)({ exports }, exports, shim);
    return exports;
  };
  const out = new Map<string, Any>();
  for (const id of sources.keys()) if (id.endsWith("_pb.js")) out.set(id, require(id));
  return out;
}

function fieldOf(field: Any): CursorField {
  const label: CursorField["label"] = field.repeated
    ? "repeated"
    : field.opt
    ? "optional"
    : "implicit";
  const oneof = field.oneof ? { oneof: String(field.oneof.name) } : {};
  const base = { number: field.no as number, name: field.name as string, label, ...oneof };
  switch (field.kind) {
    case "scalar":
      return { ...base, kind: "scalar", scalar: field.T };
    case "enum":
      return { ...base, kind: "enum", typeName: field.T.typeName };
    case "message":
      return { ...base, kind: "message", typeName: field.T.typeName };
    case "map": {
      const value = field.V;
      const valueType = value.kind === "scalar"
        ? { scalar: value.T }
        : { typeName: value.T.typeName };
      return { ...base, kind: "map", mapKey: field.K, ...valueType };
    }
    default:
      throw new Error(`unknown field kind ${field.kind} in ${field.name}`);
  }
}

/** Reads Cursor's descriptors from the SDK installed in `dir` (the install's root). */
export async function cursorDescriptors(dir: string): Promise<CursorDescriptors> {
  const sdk = join(dir, "node_modules", "@cursor", "sdk", "dist", "esm");
  const sources = new Map<string, string>();
  for (const file of ["index.js", "sqlite.js"]) {
    let text: string;
    try {
      text = await Deno.readTextFile(join(sdk, file));
    } catch {
      continue;
    }
    for (const [id, source] of factories(text)) if (!sources.has(id)) sources.set(id, source);
  }
  if (sources.size === 0) throw new Error(`no protobuf modules found in ${sdk}`);
  const protobuf = await import(
    pathToFileURL(join(dir, "node_modules", "@bufbuild", "protobuf", "dist", "esm", "index.js"))
      .href
  );
  const out: CursorDescriptors = new Map();
  for (const exports of evaluate(sources, protobuf).values()) {
    for (const key of Object.keys(exports)) {
      let value: Any;
      try {
        value = exports[key];
      } catch {
        continue;
      }
      collect(value, out);
    }
  }
  return out;
}

function collect(type: Any, out: CursorDescriptors): void {
  if (typeof type !== "function" || typeof type.typeName !== "string") return;
  if (out.has(type.typeName) || type.fields === undefined) return;
  const fields = (type.fields.list() as Any[]).map(fieldOf);
  out.set(type.typeName, fields);
  for (const field of type.fields.list() as Any[]) {
    if (field.kind === "message") collect(field.T, out);
    if (field.kind === "map" && field.V.kind === "message") collect(field.V.T, out);
  }
}

if (import.meta.main) {
  const found = await cursorDescriptors(Deno.args[0] ?? ".");
  console.log(found.size, "messages");
  for (const name of Deno.args.slice(1)) console.log(name, found.get(name));
}
