/**
 * The feature table of docs/ai-sdk.md is the code's table (src/provider/model-call/feature-support.ts),
 * row for row; its rows are exactly the AI SDK's call options and part kinds of both
 * majors (read from the types with the TypeScript checker, so an option the SDK adds
 * fails here until it has a row); and each status is what the provider does.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import {
  CALL_OPTION_SUPPORT,
  PROMPT_PART_SUPPORT,
  STREAM_PART_SUPPORT,
  type SupportRow,
} from "../../src/provider/model-call/feature-support.ts";
import { buildCallArgs } from "../../src/provider/model-call/call-args.ts";
import { convertCallOptionsV4 } from "../../src/provider/v4/v4-conversion.ts";
import { CursorError } from "../../src/core/cursor-error.ts";

const DIRECT = { label: "Cursor's agent", files: "images", reasoningVariants: true } as const;
const CLI = { label: "cursor-agent", files: "none", rawChunks: true } as const;

/** The names in a type: property names, or the string literals of a union. */
function namesIn(): Record<string, string[]> {
  // From the repository root: the Node and Bun runs execute a bundled copy elsewhere.
  const file = join(process.cwd(), "test", "support", "ai-sdk-shapes.ts");
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  assert.ok(source);
  const out: Record<string, string[]> = {};
  for (const statement of source.statements) {
    if (!ts.isTypeAliasDeclaration(statement)) continue;
    const type = checker.getTypeAtLocation(statement.name);
    const name = statement.name.text;
    if (name.endsWith("CallOptions")) {
      out[name] = checker.getPropertiesOfType(type).map((symbol) => symbol.name);
    } else {
      const members = type.isUnion() ? type.types : [type];
      out[name] = members.map((member) => (member as ts.StringLiteralType).value);
    }
  }
  return out;
}

/** The rows of the table under a heading of docs/ai-sdk.md. */
function docRows(heading: string): Record<string, SupportRow> {
  const doc = readFileSync(join(process.cwd(), "docs", "ai-sdk.md"), "utf8");
  const start = doc.indexOf(`## ${heading}\n`);
  assert.ok(start >= 0, `docs/ai-sdk.md has no section "${heading}"`);
  const section = doc.slice(start).split("\n## ")[0] ?? "";
  const rows: Record<string, SupportRow> = {};
  for (const line of section.split("\n")) {
    const cells = /^\| `([^`]+)` +\| ([^|]+?) +\| (.*?) *\|$/.exec(line);
    if (cells === null) continue;
    rows[cells[1] ?? ""] = { status: cells[2] as SupportRow["status"], note: cells[3] ?? "" };
  }
  return rows;
}

const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

describe("the feature table", () => {
  const names = namesIn();

  it("has a row for every call option of both majors, and no other", () => {
    const options = sorted([...(names.V3CallOptions ?? []), ...(names.V4CallOptions ?? [])]);
    assert.ok(options.includes("reasoning") && options.includes("temperature"), options.join());
    assert.deepEqual(sorted(Object.keys(CALL_OPTION_SUPPORT)), options);
  });

  it("has a row for every prompt part and stream part kind of both majors, and no other", () => {
    const prompt = sorted([...(names.V3PromptKind ?? []), ...(names.V4PromptKind ?? [])]);
    const stream = sorted([...(names.V3StreamKind ?? []), ...(names.V4StreamKind ?? [])]);
    assert.ok(prompt.includes("tool-result") && stream.includes("finish"));
    assert.deepEqual(sorted(Object.keys(PROMPT_PART_SUPPORT)), prompt);
    assert.deepEqual(sorted(Object.keys(STREAM_PART_SUPPORT)), stream);
  });

  it("in docs/ai-sdk.md is the code's table, row for row", () => {
    assert.deepEqual(docRows("What each call option does"), CALL_OPTION_SUPPORT);
    assert.deepEqual(docRows("Prompt parts"), PROMPT_PART_SUPPORT);
    assert.deepEqual(docRows("Stream parts"), STREAM_PART_SUPPORT);
  });

  it("marks as ignored with a warning exactly the call options that warn", () => {
    const samples: Record<string, unknown> = {
      maxOutputTokens: 100,
      temperature: 0.1,
      topP: 0.9,
      topK: 3,
      presencePenalty: 0.1,
      frequencyPenalty: 0.1,
      seed: 7,
      stopSequences: ["END"],
    };
    for (const [name, row] of Object.entries(CALL_OPTION_SUPPORT)) {
      if (row.status !== "ignored with a warning") continue;
      assert.ok(name in samples, `no sample value for ${name}`);
      const call = buildCallArgs("gpt-5", { prompt: [], [name]: samples[name] }, DIRECT);
      assert.deepEqual(call.warnings.map((w) => "feature" in w && w.feature), [name], name);
    }
    const plain = buildCallArgs(
      "gpt-5",
      { prompt: [], tools: [], toolChoice: { type: "auto" } },
      DIRECT,
    );
    assert.deepEqual(plain.warnings, [], "supported options give no warning");
  });

  it("keeps the statuses of the emulated and split rows true", () => {
    const json = buildCallArgs("gpt-5", { prompt: [], responseFormat: { type: "json" } }, DIRECT);
    assert.deepEqual(json.warnings.map((w) => w.type), ["compatibility"]);
    const raw = { prompt: [], includeRawChunks: true };
    assert.equal(buildCallArgs("gpt-5", raw, DIRECT).warnings[0]?.type, "unsupported");
    assert.deepEqual(buildCallArgs("auto", raw, CLI).warnings, []);
    const cliReasoning = buildCallArgs("auto", { prompt: [], reasoning: "high" }, CLI);
    assert.equal(cliReasoning.warnings[0]?.type, "unsupported");
  });

  it("keeps the prompt part statuses true", () => {
    for (const [kind, row] of Object.entries(PROMPT_PART_SUPPORT)) {
      if (row.status !== "ignored with a warning") continue;
      if (kind === "tool-approval-response") {
        const call = buildCallArgs("gpt-5", {
          prompt: [{
            role: "tool",
            content: [{ type: "tool-approval-response", approvalId: "a", approved: true }],
          }],
        }, DIRECT);
        assert.equal(call.warnings.length, 1, kind);
      } else {
        const part = kind === "custom" ? { type: "custom" as const, kind: "x.y" as const } : {
          type: "reasoning-file" as const,
          mediaType: "image/png",
          data: { type: "data" as const, data: "aGk=" },
        };
        const { warnings } = convertCallOptionsV4({
          prompt: [{ role: "assistant", content: [part] }],
        });
        assert.equal(warnings.length, 1, kind);
      }
    }
    assert.throws(
      () =>
        convertCallOptionsV4({
          prompt: [{
            role: "user",
            content: [{
              type: "file",
              mediaType: "image/png",
              data: { type: "reference", reference: { openai: "file-1" } },
            }],
          }],
        }),
      (error: unknown) => error instanceof CursorError && error.code === "invalid_argument",
    );
  });
});
