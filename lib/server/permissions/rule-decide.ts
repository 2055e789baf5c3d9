import { allowsCommand, readCommandAllow } from "../../permissions/command-allow";
import { normaliseFolder } from "../../permissions/working-folder";
import { AppError } from "../../protocol/errors";
import type { PermissionDecision, SubjectKind } from "../../protocol/permissions";
import { matchGlob } from "./rule-match";

/**
 * Whether a rule matches a tool call, and what a set of rules decides about it.
 * - Paths: globs; deny and ask rules ignore case (`.ENV` is caught by `**` `/.env*`: on a
 *   case-insensitive disk it is the same file), allow rules do not (they stay narrow).
 * - Commands: an allow rule is word-based (lib/permissions/command-allow.ts: `npm test` exactly,
 *   or `npm test *`); a deny or ask rule's `*` matches any text (`rm -rf*` catches `rm -rf /`).
 * - A rule with a `cwd` matches only calls in exactly that folder; one without, every folder.
 * - `*` alone matches every call of its tool, except for a command allow rule: every command a
 *   wide rule may span.
 */

export interface RuleLike {
  tool: string;
  pattern: string;
  /** Absent: read as an allow rule (the narrow reading). */
  decision?: PermissionDecision;
  cwd?: string | null;
}

export interface RuleWithDecision extends RuleLike {
  decision: PermissionDecision;
}

export interface ToolCall {
  tool: string;
  subject: string;
  subjectKind: SubjectKind;
  /** The folder it runs in (normalised, `.` the top); null for a tool without one. */
  cwd?: string | null;
}

export function matches(rule: RuleLike, call: ToolCall): boolean {
  if (rule.tool !== call.tool) return false;
  if (rule.cwd != null && (call.cwd == null || normaliseFolder(rule.cwd) !== normaliseFolder(call.cwd))) return false;
  const pattern = rule.pattern.trim();
  const decision = rule.decision ?? "allow";
  if (call.subjectKind === "command" && decision === "allow") return allowsCommand(pattern, call.subject);
  if (pattern === "*") return true;
  if (call.subjectKind === "path") return matchGlob(pattern, call.subject, { kind: "path", ignoreCase: decision !== "allow" });
  return matchGlob(pattern, call.subject, { kind: "text" });
}

const STRENGTH: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * What rules say about a call: a matching deny rule beats every ask and allow rule, a matching
 * ask rule every allow rule, whatever their age or source; among rules of the same decision the
 * first in `rules`' order is named. With none, a dangerous tool asks and any other is allowed.
 */
export function decide<R extends RuleWithDecision>(rules: readonly R[], call: ToolCall, dangerous: boolean): { decision: PermissionDecision; rule: R | null } {
  let found: R | null = null;
  for (const rule of rules) {
    if ((found === null || STRENGTH[rule.decision] > STRENGTH[found.decision]) && matches(rule, call)) found = rule;
    if (found?.decision === "deny") break;
  }
  return found ? { decision: found.decision, rule: found } : { decision: dangerous ? "ask" : "allow", rule: null };
}

/** Throws a 400 naming the pattern when an allow rule for a command is neither an exact command nor words then ` *`. */
export function checkCommandAllow(rule: RuleLike, subjectKind: SubjectKind | undefined): void {
  if (subjectKind !== "command" || (rule.decision ?? "allow") !== "allow") return;
  const read = readCommandAllow(rule.pattern);
  if (read.kind === "invalid") throw new AppError("bad_request", `Invalid pattern ${JSON.stringify(rule.pattern)}: ${read.reason}.`);
}
