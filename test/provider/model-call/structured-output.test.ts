/**
 * Structured output on both AI SDK majors against the emulator: the schema reaches the
 * model as an instruction, the emulated model answers with schema-shaped JSON, and what
 * the model answers is checked — JSON around prose or in a fence is taken out, an
 * answer without JSON or with JSON that breaks the schema is a `bad_output` error.
 */
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { APICallError } from "@ai-sdk/provider";
import { withEmulator } from "../../support/emulator.ts";
import { AI_MAJORS } from "../../support/ai-majors.ts";
import { schemaMismatch } from "../../../src/provider/model-call/json-schema-check.ts";
import { extractJson } from "../../../src/provider/model-call/structured-output.ts";

const quiet = { maxRetries: 0 } as const;

const recipe = {
  type: "object",
  properties: {
    name: { type: "string" },
    servings: { type: "integer", minimum: 2 },
    vegan: { type: "boolean" },
    steps: { type: "array", items: { type: "string" }, minItems: 2 },
    course: { enum: ["starter", "main"] },
  },
  required: ["name", "servings", "steps"],
  additionalProperties: false,
};

const expected = {
  name: "example",
  servings: 2,
  vegan: true,
  steps: ["example", "example"],
  course: "starter",
};

for (const major of AI_MAJORS) {
  describe(`structured output on ${major.name}`, () => {
    it("generateObject gets a schema-shaped object, and the schema reached the model", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const result = await major.generateObject({
          model: cursor("gpt-5"),
          schema: major.jsonSchema(recipe),
          prompt: "A soup recipe",
          ...quiet,
        });
        assert.deepEqual(result.object, expected);
        const sent = emulator.runs()[0]?.userText ?? "";
        assert.match(sent, /^A soup recipe/);
        assert.ok(sent.includes(`<json-schema>${JSON.stringify(recipe)}</json-schema>`), sent);
        assert.deepEqual(emulator.violations(), []);
      });
    });

    it("Output.object with generateText gets the object and a warning that Cursor cannot enforce it", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const result = await major.generateText({
          model: cursor("gpt-5"),
          output: major.outputObject(major.jsonSchema(recipe)),
          prompt: "A soup recipe",
          ...quiet,
        });
        assert.deepEqual(result.output, expected);
        assert.deepEqual(JSON.parse(result.text), expected);
        const warning = result.warnings?.find((w) => w.feature === "responseFormat");
        assert.equal(warning?.type, "compatibility");
        assert.match(warning?.details ?? "", /cannot enforce JSON output/);
      });
    });

    it("streamText with Output.object gets the whole object at the end", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const result = major.streamText({
          model: cursor("gpt-5"),
          output: major.outputObject(major.jsonSchema(recipe)),
          prompt: "A soup recipe",
          ...quiet,
        });
        const kinds: string[] = [];
        for await (const part of result.fullStream) kinds.push(part.type);
        assert.ok(!kinds.includes("error"), kinds.join(","));
        assert.deepEqual(await result.output, expected);
        assert.equal(kinds.filter((kind) => kind === "text-delta").length, 1, "one text part");
      });
    });

    it("takes the JSON out of a fenced answer", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const result = await major.generateText({
          model: cursor("gpt-5"),
          output: major.outputObject(
            major.jsonSchema({ type: "object", properties: { a: { type: "number" } } }),
          ),
          prompt: '::text Sure:\\n```json\\n{"a": 1}\\n```',
          ...quiet,
        });
        assert.deepEqual(result.output, { a: 1 });
      });
    });

    it("fails with bad_output when the JSON breaks the schema, saying where", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const error = await major.generateText({
          model: cursor("gpt-5"),
          output: major.outputObject(major.jsonSchema(recipe)),
          prompt: '::text {"name": "Soup", "servings": "four", "steps": []}',
          ...quiet,
        }).then(() => undefined, (reason: unknown) => reason);
        assert.ok(APICallError.isInstance(error), String(error));
        assert.equal((error.data as { code?: string }).code, "bad_output");
        assert.match(error.message, /\$\.servings: expected integer, got string/);
      });
    });

    it("fails with bad_output when the answer holds no JSON", async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = major.provider(emulator);
        const error = await major.generateText({
          model: cursor("gpt-5"),
          output: major.outputObject(major.jsonSchema(recipe)),
          prompt: "::text I would rather not",
          ...quiet,
        }).then(() => undefined, (reason: unknown) => reason);
        assert.ok(APICallError.isInstance(error), String(error));
        assert.equal((error.data as { code?: string }).code, "bad_output");
        assert.match(error.message, /holds no JSON value/);
      });
    });
  });
}

describe("the schema check", () => {
  it("names the first mismatch with its path", () => {
    assert.equal(schemaMismatch(expected, recipe), undefined);
    assert.equal(
      schemaMismatch({ ...expected, extra: 1 }, recipe),
      '$: unexpected property "extra"',
    );
    assert.equal(
      schemaMismatch({ ...expected, steps: ["a"] }, recipe),
      "$.steps: expected at least 2 items, got 1",
    );
    assert.equal(
      schemaMismatch({ ...expected, steps: ["a", 3] }, recipe),
      "$.steps[1]: expected string, got number",
    );
    assert.equal(
      schemaMismatch({ ...expected, course: "dessert" }, recipe),
      '$.course: expected one of "starter", "main"',
    );
    assert.equal(schemaMismatch(1.5, { type: "integer" }), "$: expected integer, got number");
    assert.equal(
      schemaMismatch({ a: { b: 1 } }, {
        $defs: { leaf: { type: "string" } },
        properties: { a: { properties: { b: { $ref: "#/$defs/leaf" } } } },
      }),
      "$.a.b: expected string, got number",
    );
    assert.equal(
      schemaMismatch(null, { anyOf: [{ type: "string" }, { type: "null" }] }),
      undefined,
    );
  });

  it("reads JSON in prose, fences and as the whole answer", () => {
    assert.deepEqual(extractJson('{"a":1}'), { a: 1 });
    assert.deepEqual(extractJson("The list: [1, 2] as asked."), [1, 2]);
    assert.deepEqual(extractJson('```\n{"b": true}\n```'), { b: true });
  });
});
