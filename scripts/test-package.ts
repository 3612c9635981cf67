/**
 * Proves the packaging: the JSR side publishes cleanly (dry run, no slow types), and
 * the npm build packs, installs into a scratch project, imports on Node and Bun (a turn
 * over each transport), and its types resolve under `tsc --strict` with NodeNext
 * resolution. Each proof counts as a test;
 * the closing line is `N passed, N failed`.
 *
 * Usage: `deno run -A scripts/test-package.ts`
 *
 * @module
 */
import { runCaptured } from "./lib/test-files.ts";

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
  } finally {
    await Deno.remove(scratch, { recursive: true });
  }
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
