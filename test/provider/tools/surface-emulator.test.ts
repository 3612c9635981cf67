import { describe, it } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { jsonSchema, stepCountIs, streamText, tool } from "ai";
import { emulatorProvider, withEmulator } from "../../support/emulator.ts";
import { cursorPluginTools } from "../../../plugin/cursor-tools.ts";
import type {
  ImageStaging,
  StagedImage,
} from "../../../src/provider/direct/tools/media/image-save.ts";

const session = (id: string) => ({ providerOptions: { cursor: { sessionId: id } } });

interface TaskInput {
  description: string;
  prompt: string;
  subagent_type: string;
}

/** A host `task` tool shaped like OpenCode's, recording what the child would be told. */
function taskTool(calls: TaskInput[]) {
  return tool({
    description: "Launch a subagent",
    inputSchema: jsonSchema<TaskInput>({
      type: "object",
      properties: {
        description: { type: "string" },
        prompt: { type: "string" },
        subagent_type: { type: "string" },
      },
      required: ["description", "prompt", "subagent_type"],
    }),
    execute: (input) => {
      calls.push(input);
      return "child done";
    },
  });
}

function memoryStaging(): ImageStaging & { readonly staged: Map<string, StagedImage> } {
  const staged = new Map<string, StagedImage>();
  let next = 0;
  return {
    staged,
    stage(image) {
      const id = `00000000-0000-4000-8000-${String(++next).padStart(12, "0")}`;
      staged.set(id, image);
      return id;
    },
    take(id) {
      const image = staged.get(id);
      staged.delete(id);
      return Promise.resolve(image);
    },
  };
}

describe("Task attachments through the host's task tool", () => {
  for (const directive of ["subagent", "subagent-shown"]) {
    it(`gives the child the exact quoted paths and Cursor's description (::${directive})`, async () => {
      await withEmulator({}, async (emulator) => {
        const cursor = emulatorProvider(emulator);
        const calls: TaskInput[] = [];
        const text = await streamText({
          model: cursor("gpt-5"),
          prompt:
            `::${directive} explore Compare the two files | /ws/shots/a b.png | /ws/notes "v2".txt`,
          tools: { task: taskTool(calls) },
          stopWhen: stepCountIs(4),
          ...session(`ses_task_${directive}`),
        }).text;
        assert.equal(calls.length, 1);
        const call = calls[0];
        assert.equal(call?.description, "explore task: Compare the two");
        assert.equal(call?.subagent_type, "explore");
        assert.ok(call?.prompt.startsWith("Compare the two files\n\n"));
        assert.ok(call?.prompt.includes('- "/ws/shots/a b.png"'), call?.prompt);
        assert.ok(call?.prompt.includes('- "/ws/notes \\"v2\\".txt"'), call?.prompt);
        assert.match(text, /child done/);
        assert.deepEqual(emulator.violations(), []);
      });
    });
  }
});

describe("Cursor image generation", () => {
  it("is approved when the host can save, and the saved bytes are Cursor's", async () => {
    await withEmulator({}, async (emulator) => {
      const staging = memoryStaging();
      const written = new Map<string, Uint8Array>();
      const asked: string[] = [];
      const plugin = cursorPluginTools({
        imageStaging: staging,
        writeFile: (path, bytes) => Promise.resolve(void written.set(path, bytes)),
        fetch: () => Promise.reject(new Error("no network")),
        env: {},
      });
      const save = plugin.cursor_image_save;
      assert.ok(save);
      const cursor = emulatorProvider(emulator, "sse", { imageStaging: staging });
      const text = await streamText({
        model: cursor("gpt-5"),
        prompt: "::image assets/cat.png A cat in a hat",
        tools: {
          cursor_image_save: tool({
            description: save.description,
            inputSchema: jsonSchema<{ image_id: string }>({
              type: "object",
              properties: { image_id: { type: "string" } },
            }),
            execute: async (input) =>
              (await save.execute(input, {
                worktree: process.cwd(),
                ask: (request) => Promise.resolve(void asked.push(...request.patterns)),
              })).output,
          }),
        },
        stopWhen: stepCountIs(4),
        ...session("ses_image"),
      }).text;
      const bytes = written.get(`${process.cwd()}/assets/cat.png`);
      assert.ok(bytes, `saved: ${[...written.keys()].join(", ")}; answer: ${text}`);
      assert.deepEqual([...bytes.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");
      assert.deepEqual(asked, ["assets/cat.png"], "the host's edit permission was asked");
      assert.equal(staging.staged.size, 0, "the staged image was taken");
      assert.match(text, new RegExp(`image \`assets/cat.png\`: saved ${bytes.length} bytes`));
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("is declined with the reason when the host has no save tool", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator, "sse", { imageStaging: memoryStaging() });
      const text = await streamText({
        model: cursor("gpt-5"),
        prompt: "::image cat.png A cat",
        tools: {},
        stopWhen: stepCountIs(3),
        ...session("ses_image_none"),
      }).text;
      assert.match(
        text,
        /rejected \(This host cannot save generated images: its cursor_image_save/,
      );
      const execs = emulator.runs().flatMap((run) => run.execs.map((exec) => exec.requestCase));
      assert.ok(!execs.includes("writeArgs"), `no write was sent: ${execs.join(", ")}`);
      assert.deepEqual(emulator.violations(), []);
    });
  });
});

describe("Cursor web search requests", () => {
  it("run through the host's custom_websearch tool and the model reads its results", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const queries: string[] = [];
      const text = await streamText({
        model: cursor("gpt-5"),
        prompt: "::websearch deno 3 release",
        tools: {
          custom_websearch: tool({
            description: "Search the web",
            inputSchema: jsonSchema<{ query: string }>({
              type: "object",
              properties: { query: { type: "string" } },
            }),
            execute: ({ query }) => {
              queries.push(query);
              return "Deno 3 ships (example.com/deno3)";
            },
          }),
        },
        stopWhen: stepCountIs(4),
        ...session("ses_search"),
      }).text;
      assert.deepEqual(queries, ["deno 3 release"]);
      assert.match(
        text,
        /instead; its results:\nDeno 3 ships|Deno 3 ships \(example\.com\/deno3\)/,
      );
      assert.deepEqual(emulator.violations(), []);
    });
  });

  it("are declined, saying why, when the host has no web search tool", async () => {
    await withEmulator({}, async (emulator) => {
      const cursor = emulatorProvider(emulator);
      const text = await streamText({
        model: cursor("gpt-5"),
        prompt: "::websearch anything",
        tools: {},
        stopWhen: stepCountIs(3),
        ...session("ses_search_none"),
      }).text;
      assert.match(text, /websearch "anything": rejected \(This host offers no web search tool/);
      assert.deepEqual(emulator.violations(), []);
    });
  });
});
