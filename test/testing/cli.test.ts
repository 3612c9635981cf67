import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

const DENO = `${process.cwd()}/node_modules/.bin/deno`;

describe("npm run emulator", () => {
  it(
    "prints its URLs and a token, serves until interrupted, then closes",
    existsSync(DENO) ? {} : { skip: "deno is not installed in node_modules" },
    async () => {
      const child = spawn(DENO, ["run", "-A", "scripts/emulator.ts", "--port", "0"], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      const exited = new Promise<number | null>((resolve) =>
        child.on("exit", (code) => resolve(code))
      );
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(
            () => reject(new Error(`Emulator did not start: ${output}`)),
            15_000,
          );
          child.stdout.on("data", (chunk: Uint8Array) => {
            output += new TextDecoder().decode(chunk);
            if (output.includes("emulator: ready")) {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        const url = /emulator: url=(\S+)/.exec(output)?.[1] ?? "";
        const token = /emulator: access_token=(\S+)/.exec(output)?.[1] ?? "";
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
        assert.match(output, /emulator: http2_url=http:\/\/127\.0\.0\.1:\d+/);
        const models = await fetch(`${url}/aiserver.v1.AiService/AvailableModels`, {
          method: "POST",
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: "{}",
        });
        assert.equal(models.status, 200);
        await models.text();
      } finally {
        child.kill("SIGINT");
        const code = await Promise.race([
          exited,
          new Promise((resolve) => setTimeout(() => resolve("timeout"), 10_000)),
        ]);
        if (code === "timeout") child.kill("SIGKILL");
      }
      assert.match(output, /emulator: closed/);
    },
  );
});
