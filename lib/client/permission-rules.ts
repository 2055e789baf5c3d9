import { personLabel } from "../protocol/audit";
import type { NameOf } from "../protocol/display-names";
import { commandText, readCommandAllow } from "../permissions/command-allow";
import { unescapePattern } from "../permissions/pattern-text";
import { folderWords } from "../permissions/working-folder";
import type { PermissionDecision, PermissionRule, SessionRules } from "../protocol/permissions";

/** How the settings panel words a rule: what it matches, where it came from, and its decision. */

export const DECISION_LABEL: Record<PermissionDecision, string> = { allow: "Allow", deny: "Deny", ask: "Ask" };

export const DECISION_HINT: Record<PermissionDecision, string> = {
  allow: "Runs without asking",
  deny: "Refused at once; the agent is told why",
  ask: "Asks you first",
};

export function sourceLabel(rule: PermissionRule): string {
  if (rule.source === "builtin") return "built into Parley";
  if (rule.source === "project") return "project default";
  if (rule.source === "always") return "from Allow always";
  return "added here";
}

/**
 * A session rule's grant in words: who made it, how long it lasts, how often it was used —
 * "by bob · until 18:45 · used 3 times", "for good · not used yet". `time` words an end.
 */
export function grantWords(rule: PermissionRule, { now = Date.now(), time, nameOf }: { now?: number; time: (iso: string) => string; nameOf?: NameOf }): string {
  const parts: string[] = [];
  // By the one name the person is shown by ("Administrator" for `local` until renamed).
  if (rule.createdBy) parts.push(`by ${personLabel(rule.createdBy, { nameOf })}`);
  if (rule.expiresAt) parts.push(Date.parse(rule.expiresAt) <= now ? "ended" : `until ${time(rule.expiresAt)}`);
  else parts.push("for good");
  if (rule.uses !== undefined) parts.push(rule.uses === 0 ? "not used yet" : `used ${rule.uses === 1 ? "once" : `${rule.uses} times`}`);
  return parts.join(" · ");
}

/** A path pattern's text when it has no unescaped glob character, else null. */
function literalPath(pattern: string): string | null {
  const { text, wild } = unescapePattern(pattern);
  return wild.length === 0 && !/(^|[^\\])[?[\]{}]/.test(pattern) ? text : null;
}

/** What a command rule matches, in words (deny and ask rules: only `*` is special). */
function commandWords(rule: PermissionRule): string {
  if (rule.decision === "allow") {
    const read = readCommandAllow(rule.pattern);
    if (read.kind === "exact") return `\`${read.command}\` exactly`;
    if (read.kind === "wide") return read.words.length === 0 ? "any plain command" : `\`${commandText(read.words)}\` with any further arguments`;
    return `\`${rule.pattern}\`, which matches nothing (an allow rule is an exact command or words then \`*\`)`;
  }
  const { text, wild } = unescapePattern(rule.pattern.trim());
  if (text === "*" && wild.length === 1) return "any command";
  if (wild.length === 0) return `\`${text}\` exactly`;
  if (wild.length === 1 && wild[0] === text.length - 1) return `any command starting with \`${text.slice(0, -1)}\``;
  return `any command matching \`${rule.pattern.trim()}\``;
}

/** What a path rule matches, in words. */
function pathWords(rule: PermissionRule): string {
  const pattern = rule.pattern.trim();
  const anyCase = rule.decision === "allow" ? "" : " (any case)";
  if (pattern === "*" || pattern === "**") return "any file";
  const anywhere = pattern.startsWith("**/") ? pattern.slice(3) : null;
  const anyFolder = anywhere?.endsWith("/**") ? literalPath(anywhere.slice(0, -3)) : null;
  if (anyFolder !== null && !anyFolder.includes("/")) return `any file under a \`${anyFolder}/\` folder, anywhere${anyCase}`;
  const namePrefix = anywhere?.endsWith("*") ? literalPath(anywhere.slice(0, -1)) : null;
  if (namePrefix !== null && !namePrefix.includes("/")) return `any file whose name starts with \`${namePrefix}\`, anywhere${anyCase}`;
  const folder = pattern.endsWith("/**") ? literalPath(pattern.slice(0, -3)) : null;
  if (folder !== null) return `any file under \`${folder}/\`${anyCase}`;
  const exact = literalPath(pattern);
  if (exact !== null) return `\`${exact}\` exactly${anyCase}`;
  return `files matching \`${pattern}\`${anyCase}`;
}

/** What a rule matches and where, in words: "`npm test` with any further arguments, in the workspace's top folder". */
export function matchWords(rule: PermissionRule): string {
  const what = rule.subjectKind === "command" ? commandWords(rule) : rule.subjectKind === "path" ? pathWords(rule) : rule.pattern.trim() === "*" ? "every call" : `\`${rule.pattern}\``;
  const where = rule.cwd != null ? `, ${folderWords(rule.cwd)}` : rule.subjectKind === "command" ? ", in any folder" : "";
  return `${what}${where}`;
}

/**
 * A rule in words: "shell: `npm test` with any further arguments, in the workspace's top folder",
 * "write_file: any file under `docs/`". A rule of a tool the catalogue does not have keeps its pattern.
 */
export const ruleWords = (rule: PermissionRule) => `${rule.tool}: ${matchWords(rule)}`;

export const UNKNOWN_TOOL_HINT = "No tool of this name is in the catalogue: the rule is kept, but matches nothing today.";

/** How the panel says which rule wins. */
export const PRECEDENCE_NOTE =
  "Rules decide whether a tool runs, is refused or asks you first. A matching Deny beats every Ask and Allow, and Ask beats Allow, whatever their order or where they came from.";

/** The rules without one the person removed (or that another tab removed first). */
export function withoutRule(rules: SessionRules | null, ruleId: string): SessionRules | null {
  return rules && { ...rules, session: rules.session.filter((r) => r.id !== ruleId) };
}

/** The rules' API paths for a session (ids encoded: a path segment each). */
export const rulesPath = (sessionId: string, ruleId?: string) => `/api/sessions/${encodeURIComponent(sessionId)}/rules${ruleId === undefined ? "" : `/${encodeURIComponent(ruleId)}`}`;
