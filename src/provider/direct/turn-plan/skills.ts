/**
 * Host skills as Cursor agent skills. OpenCode lists its skills in the system prompt as an
 * `<available_skills>` block (a `<skill>` with `<name>`, `<description>` and `<location>`,
 * the absolute path of its `SKILL.md`, for each); Cursor takes them in the request
 * context's `agent_skills` (path and description). Skills only grow within a
 * conversation, like host tools (capability epochs): the skills advertised before keep
 * their place and a skill the host adds later is appended, so the prefix before it stays
 * byte-identical.
 *
 * @module
 */
import type { RequestContext } from "../../../gen/agent/v1/request_context_pb.ts";
import type { AdvertisedSkill } from "../../../agent-run/request-context.ts";

const BLOCK = /<available_skills>([\s\S]*?)<\/available_skills>/;
const SKILL = /<skill>([\s\S]*?)<\/skill>/g;

/**
 * The skills a host system prompt lists with a file location, in listed order; built-in
 * skills (no file, such as OpenCode's `<built-in>`) and nameless entries are left out. `undefined` when the
 * prompt has no skills block at all.
 *
 * @param systemPrompt The host's system prompt.
 * @returns The skills, or `undefined`.
 *
 * @example
 * ```ts
 * import { hostSkills } from "./skills.ts";
 *
 * const prompt = "<available_skills>\n  <skill>\n    <name>demo</name>\n    <description>Does a and b</description>\n    <location>/p/.opencode/skill/demo/SKILL.md</location>\n  </skill>\n</available_skills>";
 * const [skill] = hostSkills(prompt) ?? [];
 * console.assert(skill?.path === "/p/.opencode/skill/demo/SKILL.md" && skill.description === "Does a and b");
 * ```
 */
export function hostSkills(systemPrompt: string): AdvertisedSkill[] | undefined {
  const block = BLOCK.exec(systemPrompt)?.[1];
  if (block === undefined) return undefined;
  const skills: AdvertisedSkill[] = [];
  for (const match of block.matchAll(SKILL)) {
    const body = match[1] ?? "";
    // OpenCode escapes only the location.
    const name = tag(body, "name");
    const path = unescapeXml(tag(body, "location"));
    if (name === "" || !isAbsolutePath(path)) continue;
    skills.push({ description: tag(body, "description"), path });
  }
  return skills;
}

/**
 * The skills to advertise: earlier ones (by path) kept with their first description, new
 * ones appended.
 *
 * @param previous What the conversation advertised so far.
 * @param current The host's skills on this call (`undefined`: the host lists none).
 * @returns The skills, or `undefined` when neither side has a skills list.
 *
 * @example
 * ```ts
 * import { advertisedSkills } from "./skills.ts";
 *
 * const a = { description: "A", path: "/s/a/SKILL.md" };
 * const b = { description: "B", path: "/s/b/SKILL.md" };
 * console.assert(advertisedSkills([a], [b, a])?.map((s) => s.description).join() === "A,B");
 * ```
 */
export function advertisedSkills(
  previous: readonly AdvertisedSkill[] | undefined,
  current: readonly AdvertisedSkill[] | undefined,
): AdvertisedSkill[] | undefined {
  if (previous === undefined && current === undefined) return undefined;
  const out = [...previous ?? []];
  const known = new Set(out.map((skill) => skill.path));
  for (const skill of current ?? []) {
    if (known.has(skill.path)) continue;
    known.add(skill.path);
    out.push(skill);
  }
  return out;
}

function tag(body: string, name: string): string {
  return new RegExp(`<${name}>([\\s\\S]*?)</${name}>`).exec(body)?.[1]?.trim() ?? "";
}

function isAbsolutePath(path: string): boolean {
  return path.startsWith("/") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(lt|gt|quot|apos|amp);/g,
    (_, entity: string) => XML_ENTITIES[entity] ?? "",
  );
}

const XML_ENTITIES: Readonly<Record<string, string>> = {
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  amp: "&",
};

/** The skills of a Run and how many it appends to what the conversation had. */
export interface ConversationSkills {
  readonly advertised: AdvertisedSkill[] | undefined;
  /** Skills new to the conversation on this Run (a capability-epoch change when > 0). */
  readonly appended: number;
}

/**
 * The skills a Run advertises: those of the conversation's last request context, then
 * any the host's current system prompt adds.
 *
 * @param previous The conversation's last request context (restored ones included).
 * @param systemPrompt The host's current system prompt.
 * @returns The skills and how many are new; none appended on a conversation's first Run.
 *
 * @example
 * ```ts
 * import { conversationSkills } from "./skills.ts";
 *
 * const prompt = "<available_skills><skill><name>a</name><description>A</description><location>/a/SKILL.md</location></skill></available_skills>";
 * console.assert(conversationSkills(undefined, prompt).advertised?.length === 1);
 * ```
 */
export function conversationSkills(
  previous: { readonly message: RequestContext } | undefined,
  systemPrompt: string,
): ConversationSkills {
  const before = previous?.message.agentSkillsInfoComplete
    ? previous.message.agentSkills.map((skill) => ({
      description: skill.description,
      path: skill.fullPath,
    }))
    : undefined;
  const advertised = advertisedSkills(before, hostSkills(systemPrompt));
  const appended = before === undefined || previous === undefined
    ? 0
    : (advertised?.length ?? 0) - before.length;
  return { advertised, appended };
}
