/**
 * The fake's chat store on disk, so a later process can resume a chat: one JSON file
 * per chat under `<stateDir>/<hash of workspace>/<hash of chat id>.json`.
 *
 * @module
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { isJsonObject, parseJson } from "../../../cli/json.ts";
import {
  type FakeChat,
  type FakeChatStore,
  shortHash,
} from "../../fake-cursor-agent/chat-store.ts";

/**
 * Creates a store in a directory.
 *
 * @param stateDir The directory (created when missing).
 * @returns The store.
 */
export function createFileChatStore(stateDir: string): FakeChatStore {
  const folder = (workspace: string) => join(stateDir, shortHash(workspace));
  const file = (workspace: string, chatId: string) =>
    join(folder(workspace), `${shortHash(chatId)}.json`);
  return {
    load(workspace, chatId) {
      const chat = readChat(file(workspace, chatId));
      return chat?.id === chatId && chat.workspace === workspace ? chat : undefined;
    },
    save(chat) {
      mkdirSync(folder(chat.workspace), { recursive: true });
      const target = file(chat.workspace, chat.id);
      const temporary = `${target}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify(chat));
      renameSync(temporary, target);
    },
    latest(workspace) {
      let names: string[];
      try {
        names = readdirSync(folder(workspace)).filter((name) => name.endsWith(".json"));
      } catch {
        return undefined;
      }
      return names
        .map((name) => readChat(join(folder(workspace), name)))
        .filter((chat): chat is FakeChat => chat !== undefined && chat.workspace === workspace)
        .sort((a, b) => b.updatedAtMs - a.updatedAtMs)[0];
    },
  };
}

function readChat(path: string): FakeChat | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
  const parsed = parseJson(text);
  if (!parsed.ok || !isJsonObject(parsed.value)) return undefined;
  const value = parsed.value;
  const prompts = value["prompts"];
  if (
    typeof value["id"] !== "string" || typeof value["workspace"] !== "string" ||
    !Array.isArray(prompts) ||
    typeof value["createdAtMs"] !== "number" || typeof value["updatedAtMs"] !== "number"
  ) return undefined;
  return {
    id: value["id"],
    workspace: value["workspace"],
    prompts: prompts.filter((prompt): prompt is string => typeof prompt === "string"),
    createdAtMs: value["createdAtMs"],
    updatedAtMs: value["updatedAtMs"],
  };
}
