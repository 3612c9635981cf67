import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { pathToFileURL } from "node:url";
import { checkFile } from "./layers.ts";

/** Tests run from the repository root on every runtime (bundled copies live elsewhere). */
const ROOT = pathToFileURL(`${process.cwd()}/`);

async function sourceFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  let entries;
  try {
    entries = await readdir(new URL(dir, ROOT), { withFileTypes: true });
  } catch {
    return out;
  }
  for (const entry of entries) {
    const path = dir === "." ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...await sourceFiles(path));
    else if (entry.name.endsWith(".ts")) out.push(path);
  }
  return out;
}

describe("architecture", () => {
  it("the source tree keeps its layers and its web-standard core", async () => {
    const roots = (await readdir(ROOT)).filter((name) => name.endsWith(".ts"));
    const files = [
      ...roots,
      ...await sourceFiles("src"),
      ...await sourceFiles("plugin"),
      ...await sourceFiles("stores"),
    ];
    assert.ok(files.length > 5, "expected to find the source files");
    const violations = [];
    for (const file of files) {
      violations.push(...checkFile(file, await readFile(new URL(file, ROOT), "utf8")));
    }
    assert.deepEqual(violations.map((v) => `${v.file}:${v.line} ${v.message}`), []);
  });

  it("rejects node: imports in the core", () => {
    const found = checkFile("src/protocol/x.ts", 'import { readFile } from "node:fs/promises";\n');
    assert.equal(found.length, 1);
    assert.match(found[0]?.message ?? "", /runtime module "node:fs\/promises"/);
  });

  it("rejects Deno and Bun globals in the core", () => {
    assert.equal(checkFile("src/agent-run/x.ts", "const a = Deno.env.get('X');\n").length, 1);
    assert.equal(checkFile("src/provider/x.ts", "const b = Bun.file('x');\n").length, 1);
  });

  it("keeps the optional store adapters and their client behind their own entries", () => {
    const redisAdapter = 'export * from "./src/adapters/redis/snapshot-redis-store.ts";\n';
    assert.equal(checkFile("node.ts", redisAdapter).length, 1);
    assert.equal(checkFile("mod.ts", redisAdapter).length, 1);
    assert.equal(
      checkFile("src/provider/x.ts", 'import { a } from "../adapters/deno/snapshot-kv-store.ts";\n')
        .length,
      1,
    );
    assert.match(
      checkFile(
        "src/provider/x.ts",
        'import { a } from "../adapters/cloudflare/snapshot-durable-object-store.ts";\n',
      )[0]?.message ?? "",
      /optional store adapter/,
    );
    assert.deepEqual(
      checkFile(
        "stores/redis.ts",
        'export * from "../src/adapters/redis/snapshot-redis-store.ts";\n',
      ),
      [],
    );
    assert.equal(
      checkFile("src/adapters/node/x.ts", 'import { createClient } from "redis";\n').length,
      1,
    );
    assert.match(
      checkFile("src/agent-run/x.ts", 'import { createClient } from "redis";\n')[0]?.message ?? "",
      /optional peer "redis"/,
    );
    assert.deepEqual(
      checkFile("src/adapters/redis/x.ts", 'import { createClient } from "redis";\n'),
      [],
    );
  });

  it("allows runtime APIs in adapters", () => {
    assert.deepEqual(checkFile("src/adapters/node/x.ts", 'import http2 from "node:http2";\n'), []);
  });

  it("rejects imports that go up a layer", () => {
    const found = checkFile("src/protocol/x.ts", 'import { y } from "../agent-run/y.ts";\n');
    assert.equal(found.length, 1);
    assert.match(
      found[0]?.message ?? "",
      /layer src\/protocol imports higher layer src\/agent-run/,
    );
    assert.equal(checkFile("src/core/x.ts", 'export { y } from "../provider/y.ts";\n').length, 1);
    assert.equal(
      checkFile("src/provider/x.ts", 'const m = await import("../../plugin/x.ts");\n').length,
      1,
    );
  });

  it("allows imports that go down", () => {
    assert.deepEqual(checkFile("src/provider/x.ts", 'import { y } from "../protocol/y.ts";\n'), []);
  });

  it("keeps adapters out of the web-standard entry", () => {
    assert.equal(checkFile("mod.ts", 'export * from "./src/adapters/node/x.ts";\n').length, 1);
    assert.deepEqual(checkFile("node.ts", 'export * from "./src/adapters/node/x.ts";\n'), []);
  });

  it("keeps the emulator out of the product", () => {
    assert.equal(
      checkFile("src/adapters/x.ts", 'import { e } from "../testing/e.ts";\n').length,
      1,
    );
  });
});

describe("architecture: comments", () => {
  it("ignores imports that appear in JSDoc examples", () => {
    assert.deepEqual(
      checkFile("src/provider/x.ts", ' * import { createCursor } from "../../mod.ts";\n'),
      [],
    );
  });
});
