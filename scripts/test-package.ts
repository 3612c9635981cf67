/**
 * Proves the packaging: the JSR side publishes cleanly (dry run, no slow types), and
 * the npm build packs, installs into a scratch project, imports on Node and Bun (a turn
 * over each transport), and its types resolve under `tsc --strict` with NodeNext
 * resolution; then one consumer project per AI SDK major (`ai` 6 with the root entry,
 * `ai` 7 with `/v4`) type-checks under `tsc --strict` with NodeNext and Bundler
 * resolution and runs `generateText` and `generateObject` against the emulator on Node;
 * and a Worker app of the installed package, bundled as wrangler does, continues a
 * conversation warm across two Workers in workerd (`scripts/lib/package-workerd.ts`).
 * Each proof counts as a test; the closing line is `N passed, N failed`.
 *
 * Usage: `deno run -A scripts/test-package.ts`
 *
 * @module
 */
import { runCaptured } from "./lib/test-files.ts";
import { workerBundleArgs, writeWorkerdProof } from "./lib/package-workerd.ts";

const FIVE_MINUTES = 5 * 60 * 1000;
const results: { name: string; ok: boolean }[] = [];
const root = Deno.cwd();

async function prove(name: string, command: string, args: string[], cwd = root): Promise<boolean> {
  console.log(`\n== ${name}`);
  const previous = Deno.cwd();
  Deno.chdir(cwd);
  try {
    const { code } = await runCaptured(command, args, FIVE_MINUTES);
    results.push({ name, ok: code === 0 });
    return code === 0;
  } finally {
    Deno.chdir(previous);
  }
}

await prove("deno publish --dry-run", "deno", ["publish", "--dry-run", "--allow-dirty"]);
const built = await prove("npm run build", "deno", ["run", "-A", "scripts/build.ts"]);
if (built) await proveInstalledPackage();

const passed = results.filter((r) => r.ok).length;
for (const r of results) console.log(`${r.ok ? "ok  " : "FAIL"} ${r.name}`);
console.log(`${passed} passed, ${results.length - passed} failed`);
if (passed !== results.length || results.length === 0) Deno.exit(1);

async function proveInstalledPackage(): Promise<void> {
  const scratch = await Deno.makeTempDir({ prefix: "package-smoke-" });
  try {
    const packed = await runCaptured(
      "npm",
      ["pack", `${root}/npm`, "--silent", "--pack-destination", scratch],
      FIVE_MINUTES,
      {},
    );
    const tarball = packed.output.trim().split("\n").pop() ?? "";
    results.push({ name: "npm pack", ok: packed.code === 0 && tarball.endsWith(".tgz") });
    if (packed.code !== 0) return;
    await writeScratchProject(scratch);
    const installed = await prove("npm install (scratch project)", "npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      `./${tarball}`,
      "@types/node@20",
      "@types/json-schema",
    ], scratch);
    if (!installed) return;
    await prove(
      "import on Node and run a chat turn (SSE and HTTP/2)",
      "node",
      ["smoke.mjs"],
      scratch,
    );
    await prove(
      "import on Bun and run a chat turn (SSE and HTTP/2)",
      "bun",
      ["smoke.mjs"],
      scratch,
    );
    await prove(
      "npx ai-sdk-provider-cursor doctor --help (the package's executable)",
      "npx",
      ["--no-install", "ai-sdk-provider-cursor", "doctor", "--help"],
      scratch,
    );
    await prove(
      "types under tsc --strict (NodeNext)",
      `${root}/node_modules/.bin/tsc`,
      ["-p", "."],
      scratch,
    );
    await writeWorkerdProof(scratch, root);
    const bundled = await prove(
      "bundle a Worker of the installed package (esbuild, workerd conditions)",
      `${root}/node_modules/.bin/esbuild`,
      workerBundleArgs(),
      scratch,
    );
    if (bundled) {
      await prove(
        "the Worker in workerd: turn 2 on another Worker continues warm (Durable Object store)",
        "node",
        ["workerd.mjs"],
        scratch,
      );
    }
    for (const major of consumers()) await proveConsumer(scratch, tarball, major);
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
}

/** One AI SDK major and the entry an app of it imports. */
interface Consumer {
  readonly major: number;
  readonly ai: string;
  readonly entry: string;
  /** Call options only this major has. */
  readonly extra: string;
}

/** The consumers (a function: the top-level awaits above run before any `const` here). */
function consumers(): readonly Consumer[] {
  return [
    { major: 6, ai: "ai@6.0.325", entry: "ai-sdk-provider-cursor", extra: "" },
    { major: 7, ai: "ai@7.0.173", entry: "ai-sdk-provider-cursor/v4", extra: 'reasoning: "high",' },
  ];
}

/** A consumer project of one major: install, both module resolutions, a run on Node. */
async function proveConsumer(scratch: string, tarball: string, consumer: Consumer): Promise<void> {
  const dir = `${scratch}/consumer-ai${consumer.major}`;
  await Deno.mkdir(dir, { recursive: true });
  await writeConsumerProject(dir, consumer);
  const installed = await prove(`npm install (ai ${consumer.major} consumer)`, "npm", [
    "install",
    "--no-audit",
    "--no-fund",
    "--prefer-offline",
    `../${tarball}`,
    consumer.ai,
    "@types/node@20",
  ], dir);
  if (!installed) return;
  for (const resolution of ["nodenext", "bundler"]) {
    await prove(
      `ai ${consumer.major} consumer types under tsc --strict (${resolution})`,
      `${root}/node_modules/.bin/tsc`,
      ["-p", `tsconfig.${resolution}.json`],
      dir,
    );
  }
  await prove(
    `ai ${consumer.major} consumer: generateText and generateObject against the emulator (Node)`,
    "node",
    ["run.mjs"],
    dir,
  );
}

async function writeConsumerProject(dir: string, consumer: Consumer): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: `consumer-ai${consumer.major}`, private: true, type: "module" }),
  );
  await Deno.writeTextFile(
    `${dir}/consumer.ts`,
    [
      'import { createProviderRegistry, generateText, jsonSchema, Output } from "ai";',
      `import { createCursor, CursorError, type CursorProviderOptions } from "${consumer.entry}";`,
      'const cursor = createCursor({ apiKey: "crsr_consumer_key_0123" });',
      'const options = { sessionId: "chat-1", usage: "request" } satisfies CursorProviderOptions;',
      "// @ts-expect-error a typo in the provider options does not type-check",
      'export const typo = { sesionId: "chat-1" } satisfies CursorProviderOptions;',
      "export const registry = createProviderRegistry({ cursor });",
      'export const error: CursorError = new CursorError("network", "probe");',
      "export async function ask(): Promise<string> {",
      "  const result = await generateText({",
      '    model: registry.languageModel("cursor:gpt-5"),',
      '    prompt: "Hi",',
      `    ${consumer.extra}`,
      "    providerOptions: { cursor: options },",
      '    output: Output.object({ schema: jsonSchema<{ a: number }>({ type: "object" }) }),',
      "  });",
      "  return String(result.output.a);",
      "}",
    ].join("\n"),
  );
  const compilerOptions = {
    strict: true,
    target: "ES2022",
    noEmit: true,
    types: ["node"],
    skipLibCheck: false,
  };
  for (
    const [name, resolution] of [
      ["nodenext", { module: "NodeNext", moduleResolution: "NodeNext" }],
      ["bundler", { module: "ESNext", moduleResolution: "Bundler" }],
    ] as const
  ) {
    await Deno.writeTextFile(
      `${dir}/tsconfig.${name}.json`,
      JSON.stringify({
        compilerOptions: { ...compilerOptions, ...resolution },
        files: ["consumer.ts"],
      }),
    );
  }
  await Deno.writeTextFile(
    `${dir}/run.mjs`,
    [
      'import { generateObject, generateText, jsonSchema } from "ai";',
      `import { createCursor } from "${consumer.entry}";`,
      'import { startCursorEmulator } from "ai-sdk-provider-cursor/testing";',
      // The npm build names the npm package in its messages (the sources name the JSR one).
      'const web = await import(new URL("./node_modules/ai-sdk-provider-cursor/mod.js", import.meta.url).href);',
      'const refused = (() => { try { web.createCursor({ accessToken: "t", transport: "http2", env: {} }); } catch (error) { return String(error.message); } })();',
      "if (!refused?.includes('import from \"ai-sdk-provider-cursor/node\"')) throw new Error(`the web entry's message names another package: ${refused}`);",
      // `./server`, which OpenCode 1.18 loads for a plugin named by package: both plugin shapes.
      'const server = (await import("ai-sdk-provider-cursor/server")).default;',
      'if (typeof server.server !== "function" || typeof server.setup !== "function") throw new Error("./server lacks server() or setup()");',
      "const emulator = await startCursorEmulator();",
      "try {",
      '  const cursor = createCursor({ apiKey: "crsr_package_smoke_key", apiBaseURL: emulator.url, allowLoopback: true, env: {} });',
      `  if (cursor("gpt-5").specificationVersion !== "v${
        consumer.major - 3
      }") throw new Error("wrong specification version");`,
      `  const { text } = await generateText({ model: cursor("gpt-5"), prompt: "::text consumer works", ${consumer.extra} maxRetries: 0 });`,
      '  if (text !== "consumer works") throw new Error(`unexpected answer ${JSON.stringify(text)}`);',
      '  const schema = jsonSchema({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });',
      '  const { object } = await generateObject({ model: cursor("gpt-5"), schema, prompt: "A number", maxRetries: 0 });',
      "  if (JSON.stringify(object) !== '{\"n\":1}') throw new Error(`unexpected object ${JSON.stringify(object)}`);",
      '  if (emulator.violations().length > 0) throw new Error("protocol violations");',
      `  console.log("ai ${consumer.major}:", text, JSON.stringify(object));`,
      "} finally {",
      "  await emulator.close();",
      "}",
    ].join("\n"),
  );
}

async function writeScratchProject(dir: string): Promise<void> {
  await Deno.writeTextFile(
    `${dir}/package.json`,
    JSON.stringify({ name: "scratch", private: true, type: "module" }),
  );
  await Deno.writeTextFile(
    `${dir}/smoke.mjs`,
    [
      'import { createCursor, CursorError } from "ai-sdk-provider-cursor";',
      'import { startCursorEmulator } from "ai-sdk-provider-cursor/testing";',
      'if (typeof CursorError !== "function") throw new Error("CursorError missing from the package");',
      "const emulator = await startCursorEmulator();",
      "try {",
      '  for (const transport of ["sse", "http2"]) {',
      '    const agent = transport === "http2" ? { agentBaseURL: emulator.http2Url } : {};',
      '    const cursor = createCursor({ apiKey: "crsr_package_smoke_key", apiBaseURL: emulator.url, allowLoopback: true, transport, ...agent, env: {} });',
      '    const { stream } = await cursor("gpt-5").doStream({ prompt: [{ role: "user", content: [{ type: "text", text: "::text package works" }] }] });',
      '    let text = "";',
      '    for await (const part of stream) if (part.type === "text-delta") text += part.delta;',
      '    if (text !== "package works") throw new Error(`unexpected answer over ${transport} ${JSON.stringify(text)}`);',
      '    if (emulator.violations().length > 0) throw new Error("protocol violations");',
      "    console.log(`chat turn through the installed package over ${transport}:`, text);",
      "  }",
      "} finally {",
      "  await emulator.close();",
      "}",
    ].join("\n"),
  );
  await Deno.writeTextFile(
    `${dir}/consumer.ts`,
    [
      'import { CursorError, type CursorErrorCode } from "ai-sdk-provider-cursor";',
      'const code: CursorErrorCode = "network";',
      'export const error: CursorError = new CursorError(code, "probe");',
    ].join("\n"),
  );
  await Deno.writeTextFile(
    `${dir}/tsconfig.json`,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        module: "NodeNext",
        moduleResolution: "NodeNext",
        target: "ES2022",
        noEmit: true,
        types: ["node"],
        skipLibCheck: false,
      },
      files: ["consumer.ts"],
    }),
  );
}
