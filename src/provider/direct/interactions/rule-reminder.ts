/**
 * Rule reminders for Cursor's model: when the session's rules deny file edits, the model
 * is told once (so it stops trying edits and offering implementation); when the deny is
 * lifted, a replacement is sent once; a deny imposed again (an older one restored
 * included) is told again. Rules that did not change, rules that could not be read and
 * calls without rules send nothing, and so do ordinary steps with no deny to supersede.
 * The reminder travels with the next user message, or with a host tool's result in a held
 * continuation (see ADR 135); the frozen request context never changes for it.
 *
 * @module
 */
import type { ExecResultInit } from "../tools/exec-results.ts";
import { editDenied, type SessionRules } from "./session-rules.ts";

/** Which reminder Cursor's model was sent last in a conversation. */
export type RuleReminderKind = "edit-denied" | "edit-allowed";

/** A reminder that is due: its kind (to remember once sent) and its text. */
export interface RuleReminder {
  readonly kind: RuleReminderKind;
  readonly text: string;
}

const TEXTS: Readonly<Record<RuleReminderKind, string>> = {
  "edit-denied": "<system-reminder>\nThe user's session rules deny file edits. Do not try to " +
    "create, edit or delete files, and do not offer to implement changes; answer, read and " +
    "plan instead. A plan is held for the user until they change the rule.\n</system-reminder>",
  "edit-allowed": "<system-reminder>\nThe user's session rules allow file edits again; this " +
    "replaces the earlier reminder that denied them. Plans still go through the user's " +
    "review before they are implemented.\n</system-reminder>",
};

/**
 * The reminder due under this call's rules, given the one sent last.
 *
 * @param lastSent The reminder the conversation was sent last (`undefined`: none).
 * @param rules The rules of this call (`undefined`: the host hands over none).
 * @returns The reminder to send, or `undefined`.
 *
 * @example
 * ```ts
 * import { dueRuleReminder } from "./rule-reminder.ts";
 *
 * const deny = { status: "readable" as const, rules: [{ permission: "edit", pattern: "*", action: "deny" as const }] };
 * console.assert(dueRuleReminder(undefined, deny)?.kind === "edit-denied");
 * console.assert(dueRuleReminder("edit-denied", deny) === undefined);
 * console.assert(dueRuleReminder("edit-denied", { status: "readable", rules: [] })?.kind === "edit-allowed");
 * console.assert(dueRuleReminder(undefined, { status: "readable", rules: [] }) === undefined);
 * ```
 */
export function dueRuleReminder(
  lastSent: RuleReminderKind | undefined,
  rules: SessionRules | undefined,
): RuleReminder | undefined {
  if (rules === undefined || rules.status === "unreadable") return undefined;
  const kind: RuleReminderKind = editDenied(rules.rules) ? "edit-denied" : "edit-allowed";
  // No deny was told, so there is nothing for an allowing rule set to supersede.
  if (kind === "edit-allowed" && lastSent === undefined) return undefined;
  return kind === lastSent ? undefined : { kind, text: TEXTS[kind] };
}

/**
 * Adds a reminder to a host tool's MCP result as a text item of its own (the only result
 * shape that carries free text for the model); other results are left as they are.
 *
 * @param messages The exec result messages of one host result.
 * @param text The reminder.
 * @returns The messages with the reminder, or `undefined` when they cannot carry it.
 *
 * @example
 * ```ts
 * import { withRuleReminder } from "./rule-reminder.ts";
 *
 * const mcp = [{ case: "mcpResult" as const, value: { result: { case: "success" as const, value: { content: [], isError: false } } } }];
 * console.assert(withRuleReminder(mcp, "note") !== undefined);
 * console.assert(withRuleReminder([{ case: "readResult" as const, value: {} }], "note") === undefined);
 * ```
 */
export function withRuleReminder(
  messages: readonly ExecResultInit[],
  text: string,
): ExecResultInit[] | undefined {
  const [first, ...rest] = messages;
  if (first?.case !== "mcpResult") return undefined;
  const result = first.value.result;
  if (result?.case !== "success") return undefined;
  const success = result.value;
  const content = [
    ...(success.content ?? []),
    { content: { case: "text" as const, value: { text } } },
  ];
  const isError = success.isError ?? false;
  return [
    { case: "mcpResult", value: { result: { case: "success", value: { content, isError } } } },
    ...rest,
  ];
}
