/** Starting the emulator for provider tests, and a provider pointed at it. */
import { spawnSync } from "node:child_process";
import { jsonSchema, type Tool, tool } from "ai";
import {
  type CursorEmulator,
  startCursorEmulator,
  type StartEmulatorOptions,
} from "../../src/testing/mod.ts";
import { createCursor } from "../../node.ts";
import { createHttp2Transport } from "../../src/adapters/node/http2/http2-transport.ts";
import type { CursorProviderSettings } from "../../src/provider/settings/cursor-settings.ts";

/** The HTTP/2 transport, with its `close()`. */
type Http2Transport = ReturnType<typeof createHttp2Transport>;

/** The HTTP/2 transports of the providers made for each emulator, closed before it. */
const http2Transports = new WeakMap<CursorEmulator, Http2Transport[]>();

/**
 * Runs `fn` with a fresh emulator, closing it afterwards: first the HTTP/2 sessions of the
 * providers made for it (as a client goes away before its server), then the emulator.
 */
export async function withEmulator<T>(
  options: StartEmulatorOptions,
  fn: (emulator: CursorEmulator) => Promise<T>,
): Promise<T> {
  const emulator = await startCursorEmulator(options);
  try {
    return await fn(emulator);
  } finally {
    for (const transport of http2Transports.get(emulator) ?? []) transport.close();
    await emulator.close();
  }
}

function http2TransportFor(emulator: CursorEmulator): Http2Transport {
  const transport = createHttp2Transport();
  http2Transports.set(emulator, [...(http2Transports.get(emulator) ?? []), transport]);
  return transport;
}

/** A provider pointed at the emulator over the given transport. */
export function emulatorProvider(
  emulator: CursorEmulator,
  transport: "sse" | "http2" = "sse",
  settings: CursorProviderSettings = {},
): ReturnType<typeof createCursor> {
  return createCursor({
    apiKey: "crsr_test_key_0123456789",
    apiBaseURL: emulator.url,
    allowLoopback: true,
    transport: transport === "http2" ? http2TransportFor(emulator) : transport,
    ...(transport === "http2" && emulator.http2Url ? { agentBaseURL: emulator.http2Url } : {}),
    env: {},
    // Tests never share snapshots through the user's cache folder.
    conversationSnapshots: false,
    // Nor stage generated images there.
    imageStaging: false,
    ...settings,
  });
}

/** The input of the test host's shell tool. */
export interface ShellInput {
  command: string;
  timeout?: number;
  workdir?: string;
  description?: string;
}

/** OpenCode-like host tools that really run (in `cwd`). */
export function hostTools(
  cwd: string,
  options: { shellTimeoutMs?: number } = {},
): { bash: Tool<ShellInput, string>; read: Tool<{ filePath: string }, string> } {
  const shell = (command: string, timeoutMs?: number) => {
    const run = spawnSync("sh", ["-c", command], {
      cwd,
      encoding: "utf8",
      timeout: timeoutMs ?? 10_000,
    });
    if (run.error && (run.error as { code?: string }).code === "ETIMEDOUT") {
      return `${
        run.stdout ?? ""
      }\n\nshell tool terminated command after exceeding timeout ${timeoutMs} ms.`;
    }
    return (run.stdout ?? "") + (run.stderr ?? "");
  };
  return {
    bash: tool({
      description: "Run a shell command",
      inputSchema: jsonSchema<
        { command: string; timeout?: number; workdir?: string; description?: string }
      >({
        type: "object",
        properties: {
          command: { type: "string" },
          timeout: { type: "number" },
          workdir: { type: "string" },
          description: { type: "string" },
        },
        required: ["command"],
      }),
      execute: ({ command, timeout }) => shell(command, options.shellTimeoutMs ?? timeout),
    }),
    read: tool({
      description: "Read a file",
      inputSchema: jsonSchema<{ filePath: string }>({
        type: "object",
        properties: { filePath: { type: "string" } },
        required: ["filePath"],
      }),
      execute: ({ filePath }) => {
        const text = shell(`cat -- '${filePath.replaceAll("'", "'\\''")}'`);
        const lines = text.split("\n");
        if (lines[lines.length - 1] === "") lines.pop();
        return `<path>${filePath}</path>\n<type>file</type>\n<content>\n${
          lines.map((l, i) => `${i + 1}: ${l}`).join("\n")
        }\n\n(End of file - total ${lines.length} lines)\n</content>`;
      },
    }),
  };
}
