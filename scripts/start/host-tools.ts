/**
 * Real host tools for `npm start -- --tools`: `read`, `list`, `grep` and `glob` (and with
 * `--tools=write` also `write` and `bash`) executed for real inside one temporary
 * workspace, so a chat turn shows Cursor's whole agent loop. Paths outside the
 * workspace are refused; the workspace is removed afterwards.
 *
 * @module
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { jsonSchema, type Tool, tool } from "ai";

/** Which tools are offered. */
export type ToolAccess = "read" | "write";

/** A temporary workspace with its tools. */
export interface HostWorkspace {
  readonly root: string;
  readonly tools: Record<string, Tool>;
  remove(): Promise<void>;
}

const SEED_FILES: Readonly<Record<string, string>> = {
  "README.md": "# Demo workspace\n\nA scratch folder created by `npm start -- --tools`.\n",
  "notes.txt": "Buy milk\nTODO: call the plumber\nRead the emulator docs\n",
  "src/hello.ts": 'export const greeting = "hello";\n// TODO: say more\n',
};

/**
 * Creates the workspace (a few seed files) and its tools.
 *
 * @param access `read` for read/list/grep/glob; `write` adds write and bash.
 * @returns The workspace; call `remove()` when done.
 */
export async function createHostWorkspace(access: ToolAccess): Promise<HostWorkspace> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "cursor-start-")));
  for (const [path, text] of Object.entries(SEED_FILES)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  const tools: Record<string, Tool> = {
    read: readTool(root),
    list: listTool(root),
    grep: grepTool(root),
    glob: globTool(root),
    ...(access === "write" ? { write: writeTool(root), bash: bashTool(root) } : {}),
  };
  return { root, tools, remove: () => rm(root, { recursive: true, force: true }) };
}

/** Resolves a tool path inside the workspace; throws for anything outside. */
export function insideWorkspace(root: string, path: string | undefined): string {
  const full = resolve(root, path === undefined || path === "" ? "." : path);
  const rel = relative(root, full);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    throw new Error(`Path ${JSON.stringify(path)} is outside the workspace ${root}`);
  }
  return full;
}

function stringProperty(description: string) {
  return { type: "string", description } as const;
}

function readTool(root: string): Tool {
  return tool({
    description: "Read a text file of the workspace",
    inputSchema: jsonSchema<{ filePath: string }>({
      type: "object",
      properties: { filePath: stringProperty("path of the file") },
      required: ["filePath"],
    }),
    execute: ({ filePath }) => readFile(insideWorkspace(root, filePath), "utf8"),
  });
}

async function walk(root: string, dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(`${relative(root, full)}/`, ...await walk(root, full));
    else out.push(relative(root, full));
  }
  return out.sort();
}

function listTool(root: string): Tool {
  return tool({
    description: "List the files under a folder of the workspace",
    inputSchema: jsonSchema<{ path?: string }>({
      type: "object",
      properties: { path: stringProperty("folder (default the workspace)") },
    }),
    execute: async ({ path }) => {
      const dir = insideWorkspace(root, path);
      return (await walk(dir, dir)).join("\n");
    },
  });
}

/** Turns a glob (`*`, `**`, `?`) into a regular expression over relative paths. */
export function globPattern(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const char = glob[i] ?? "";
    if (char === "*" && glob[i + 1] === "*") {
      source += glob[i + 2] === "/" ? "(?:.*/)?" : ".*";
      i += glob[i + 2] === "/" ? 2 : 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else source += char.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(glob.includes("/") ? `^${source}$` : `(?:^|/)${source}$`);
}

function globTool(root: string): Tool {
  return tool({
    description: "Find files of the workspace by glob pattern",
    inputSchema: jsonSchema<{ pattern: string; path?: string }>({
      type: "object",
      properties: { pattern: stringProperty("glob, e.g. **/*.ts"), path: stringProperty("folder") },
      required: ["pattern"],
    }),
    execute: async ({ pattern, path }) => {
      const dir = insideWorkspace(root, path);
      const matcher = globPattern(pattern);
      const files = (await walk(dir, dir)).filter((f) => !f.endsWith("/") && matcher.test(f));
      return files.map((f) => join(dir, f)).join("\n") || "No files found";
    },
  });
}

function grepTool(root: string): Tool {
  return tool({
    description: "Search the workspace's files for a regular expression",
    inputSchema: jsonSchema<{ pattern: string; path?: string; include?: string }>({
      type: "object",
      properties: {
        pattern: stringProperty("regular expression"),
        path: stringProperty("folder"),
        include: stringProperty("only files matching this glob"),
      },
      required: ["pattern"],
    }),
    execute: async ({ pattern, path, include }) => {
      const dir = insideWorkspace(root, path);
      const regex = new RegExp(pattern);
      const only = include ? globPattern(include) : undefined;
      const hits: string[] = [];
      for (const file of await walk(dir, dir)) {
        if (file.endsWith("/") || (only && !only.test(file))) continue;
        const lines = (await readFile(join(dir, file), "utf8")).split("\n");
        lines.forEach((line, index) => {
          if (regex.test(line)) hits.push(`${join(dir, file)}:${index + 1}:${line}`);
        });
      }
      return hits.join("\n") || "No matches found";
    },
  });
}

function writeTool(root: string): Tool {
  return tool({
    description: "Write a text file of the workspace",
    inputSchema: jsonSchema<{ filePath: string; content: string }>({
      type: "object",
      properties: { filePath: stringProperty("path"), content: stringProperty("new text") },
      required: ["filePath", "content"],
    }),
    execute: async ({ filePath, content }) => {
      const full = insideWorkspace(root, filePath);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
      return `Wrote ${content.length} characters to ${relative(root, full)}`;
    },
  });
}

function bashTool(root: string): Tool {
  return tool({
    description: "Run a shell command in the workspace",
    inputSchema: jsonSchema<{ command: string; workdir?: string; timeout?: number }>({
      type: "object",
      properties: {
        command: stringProperty("the command"),
        workdir: stringProperty("working folder"),
        timeout: { type: "number", description: "ms" },
      },
      required: ["command"],
    }),
    execute: ({ command, workdir, timeout }) =>
      new Promise<string>((resolve) => {
        execFile("sh", ["-c", command], {
          cwd: insideWorkspace(root, workdir),
          timeout: timeout ?? 30_000,
          maxBuffer: 4 * 1024 * 1024,
        }, (_error, stdout, stderr) => resolve(`${stdout}${stderr}`));
      }),
  });
}
