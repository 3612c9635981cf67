/**
 * The schema oracle: compares every field of every message in this project's `proto/`
 * (read from the generated descriptors in `src/gen/`) with the descriptor of the same name
 * in Cursor's own client, `@cursor/sdk` at the pinned version (see
 * `scripts/lib/cursor-sdk-install.ts` and `scripts/lib/cursor-descriptors.ts`).
 *
 * For each field: number, name, kind (scalar, message, enum, map), label (repeated,
 * optional, implicit) and the scalar or referenced type must agree. A message or field we
 * declare that Cursor's schema lacks, and any difference, fail the check unless
 * `proto/cursor-schema-allowlist.json` lists it with the decision record that explains it.
 * Fields Cursor declares and we do not are fine (we declare a subset) and only counted.
 *
 * When the SDK cannot be installed the check prints that it was skipped and passes, except
 * under `CI=true`, where it fails.
 *
 * Usage: `deno run -A scripts/check-cursor-schema.ts [--print-allowlist]` (the flag prints the
 * allow-list extended by every open difference, to review and write back)
 *
 * @module
 */
import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import type { GenFile } from "@bufbuild/protobuf/codegenv2";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { ensureCursorSdk } from "./lib/cursor-sdk-install.ts";
import {
  type CursorDescriptors,
  cursorDescriptors,
  type CursorField,
} from "./lib/cursor-descriptors.ts";

/** One allow-listed difference. */
interface AllowEntry {
  readonly message: string;
  readonly field: number;
  /** `absent` (Cursor lacks it), `name`, `kind`, `type` or `label`. */
  readonly differs: string;
  readonly adr: string;
  readonly note?: string;
}

/** The decision record new allow-list entries point at. */
const ADR = "docs/decisions/196-cursor-schema-oracle.md";

/** Packages that are this project's own, not Cursor's wire schema. */
const OWN_PACKAGES = ["provider."];

/** A field reduced to what the comparison looks at. */
interface Shape {
  readonly number: number;
  readonly name: string;
  readonly kind: string;
  readonly type: string;
  readonly label: string;
}

function scalarName(type: number): string {
  return ScalarType[type]?.toLowerCase() ?? `scalar${type}`;
}

function ourShape(field: DescField): Shape {
  const label = field.fieldKind === "list"
    ? "repeated"
    : field.proto.proto3Optional
    ? "optional"
    : "implicit";
  const base = { number: field.number, name: field.name, label };
  switch (field.fieldKind) {
    case "scalar":
      return { ...base, kind: "scalar", type: scalarName(field.scalar) };
    case "enum":
      return { ...base, kind: "enum", type: field.enum.typeName };
    case "message":
      return { ...base, kind: "message", type: field.message.typeName };
    case "list":
      return field.listKind === "scalar"
        ? { ...base, kind: "scalar", type: scalarName(field.scalar) }
        : field.listKind === "enum"
        ? { ...base, kind: "enum", type: field.enum.typeName }
        : { ...base, kind: "message", type: field.message.typeName };
    case "map": {
      const value = field.mapKind === "scalar"
        ? scalarName(field.scalar)
        : field.mapKind === "enum"
        ? field.enum.typeName
        : field.message.typeName;
      return {
        ...base,
        label: "implicit",
        kind: "map",
        type: `${scalarName(field.mapKey)},${value}`,
      };
    }
  }
}

function cursorShape(field: CursorField): Shape {
  const base = { number: field.number, name: field.name, label: field.label };
  if (field.kind === "map") {
    const value = field.scalar !== undefined ? scalarName(field.scalar) : field.typeName ?? "?";
    return {
      ...base,
      label: "implicit",
      kind: "map",
      type: `${scalarName(field.mapKey ?? 0)},${value}`,
    };
  }
  return {
    ...base,
    kind: field.kind,
    type: field.kind === "scalar" ? scalarName(field.scalar ?? 0) : field.typeName ?? "?",
  };
}

/** Every message the generated code declares, nested ones included. */
async function ourMessages(root = "src/gen"): Promise<DescMessage[]> {
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for await (const entry of Deno.readDir(dir)) {
      const path = join(dir, entry.name);
      if (entry.isDirectory) await walk(path);
      else if (entry.name.endsWith("_pb.ts")) files.push(path);
    }
  };
  await walk(root);
  const out: DescMessage[] = [];
  const add = (message: DescMessage): void => {
    out.push(message);
    message.nestedMessages.forEach(add);
  };
  for (const file of files.sort()) {
    const module = await import(pathToFileURL(join(Deno.cwd(), file)).href) as Record<
      string,
      unknown
    >;
    for (const [key, value] of Object.entries(module)) {
      if (!key.startsWith("file_")) continue;
      (value as GenFile).messages.forEach(add);
    }
  }
  return out;
}

/** The comparison's result. */
export interface SchemaReport {
  agree: number;
  allowListed: number;
  incompatible: string[];
  notInCursor: string[];
  /** Allow-list entries that would cover every open difference (for `--print-allowlist`). */
  open: AllowEntry[];
  cursorOnly: number;
  unusedAllowEntries: AllowEntry[];
}

/** Compares our messages with Cursor's descriptors. */
export function compare(
  ours: readonly DescMessage[],
  cursor: CursorDescriptors,
  allow: readonly AllowEntry[],
): SchemaReport {
  const used = new Set<AllowEntry>();
  const allowed = (message: string, field: number, differs: string): boolean => {
    const entry = allow.find((e) =>
      e.message === message && e.field === field && e.differs === differs
    );
    if (entry) used.add(entry);
    return entry !== undefined;
  };
  const report: SchemaReport = {
    agree: 0,
    allowListed: 0,
    incompatible: [],
    notInCursor: [],
    open: [],
    cursorOnly: 0,
    unusedAllowEntries: [],
  };
  for (const message of ours) {
    if (OWN_PACKAGES.some((p) => message.typeName.startsWith(p))) continue;
    const theirs = cursor.get(message.typeName);
    if (theirs === undefined) {
      if (allowed(message.typeName, 0, "absent")) report.allowListed += message.fields.length;
      else {
        report.notInCursor.push(`${message.typeName}: message not in Cursor's schema`);
        report.open.push({ message: message.typeName, field: 0, differs: "absent", adr: ADR });
      }
      continue;
    }
    const byNumber = new Map(theirs.map((f) => [f.number, f]));
    report.cursorOnly += theirs.filter((f) =>
      !message.fields.some((o) => o.number === f.number)
    ).length;
    for (const field of message.fields) {
      const our = ourShape(field);
      const other = byNumber.get(field.number);
      const where = `${message.typeName} #${field.number} ${field.name}`;
      if (other === undefined) {
        if (allowed(message.typeName, field.number, "absent")) report.allowListed++;
        else {
          report.notInCursor.push(`${where}: field not in Cursor's schema`);
          report.open.push({
            message: message.typeName,
            field: field.number,
            differs: "absent",
            adr: ADR,
          });
        }
        continue;
      }
      const cur = cursorShape(other);
      const diffs: string[] = [];
      if (our.name !== cur.name) diffs.push("name");
      if (our.kind !== cur.kind) diffs.push("kind");
      if (our.type !== cur.type) diffs.push("type");
      // A message field has presence either way: `optional` on it changes nothing on the wire.
      const label = (shape: Shape) =>
        shape.kind === "message" && shape.label === "optional" ? "implicit" : shape.label;
      if (label(our) !== label(cur)) diffs.push("label");
      if (diffs.length === 0) {
        report.agree++;
        continue;
      }
      const open = diffs.filter((d) => !allowed(message.typeName, field.number, d));
      if (open.length === 0) {
        report.allowListed++;
        continue;
      }
      for (const differs of open) {
        report.open.push({
          message: message.typeName,
          field: field.number,
          differs,
          adr: ADR,
          note: `ours ${describe(our)}, Cursor's ${describe(cur)}`,
        });
      }
      report.incompatible.push(
        `${where}: ${open.join(", ")} differ: ours ${describe(our)}, Cursor's ${describe(cur)}`,
      );
    }
  }
  report.unusedAllowEntries = allow.filter((e) => !used.has(e));
  return report;
}

function describe(shape: Shape): string {
  return `${
    shape.label === "implicit" ? "" : `${shape.label} `
  }${shape.kind} ${shape.type} ${shape.name}`;
}

async function main(): Promise<number> {
  const sdk = await ensureCursorSdk();
  if ("skip" in sdk) {
    console.error(`cursor-schema: SKIPPED — ${sdk.skip}`);
    return Deno.env.get("CI") === "true" ? 1 : 0;
  }
  const allow = JSON.parse(
    await Deno.readTextFile("proto/cursor-schema-allowlist.json"),
  ) as AllowEntry[];
  const report = compare(await ourMessages(), await cursorDescriptors(sdk.dir), allow);
  if (Deno.args.includes("--print-allowlist")) {
    console.log(JSON.stringify([...allow, ...report.open], null, 2));
    return 0;
  }
  for (const line of report.incompatible) console.error(`incompatible: ${line}`);
  for (const line of report.notInCursor) console.error(`not in Cursor's schema: ${line}`);
  for (const entry of report.unusedAllowEntries) {
    console.error(`stale allow-list entry: ${entry.message} #${entry.field} ${entry.differs}`);
  }
  console.log(
    `cursor-schema: ${report.agree} fields agree, ${report.allowListed} allow-listed, ` +
      `${report.incompatible.length} incompatible, ${report.notInCursor.length} not in Cursor's schema`,
  );
  console.log(`cursor-schema: info: ${report.cursorOnly} fields Cursor declares that we do not`);
  const failed = report.incompatible.length + report.notInCursor.length +
    report.unusedAllowEntries.length;
  return failed > 0 ? 1 : 0;
}

if (import.meta.main) Deno.exit(await main());
