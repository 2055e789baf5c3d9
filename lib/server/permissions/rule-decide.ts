import { allowsCommand, readCommandAllow } from "../../permissions/command-allow";
import { readRuleWords, ruleWordsMatch } from "../../permissions/command-rule-words";
import { simpleCommands } from "../../permissions/simple-commands";
import { normaliseFolder } from "../../permissions/working-folder";
import { AppError } from "../../protocol/errors";
import type { PermissionDecision, SubjectKind } from "../../protocol/permissions";
import { matchGlob, matchingGlobs } from "./rule-match";

/**
 * Whether a rule matches a tool call, and what a set of rules decides about it.
 * - Paths: globs; deny and ask rules ignore case (`.ENV` is caught by `**` `/.env*`: on a
 *   case-insensitive disk it is the same file), allow rules do not (they stay narrow).
 * - Commands: an allow rule is word-based (lib/permissions/command-allow.ts: `npm test` exactly,
 *   or `npm test *`); a deny or ask rule's `*` matches any text (`rm -rf*` catches `rm -rf /`),
 *   and the rule is also read against each simple command however it is spelled (`rm  -rf`,
 *   `rm -r -f`, `r''m -rf`, `/bin/rm -rf`, `env rm -rf`, `true && rm -rf /`: spelledOtherwise).
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
  /**
   * A command the operating system does not bound as allow rules assume (not sandboxed, or with
   * network access): no allow rule covers it, so it is asked for every time (deny and ask rules still apply).
   */
  unbounded?: boolean;
}

/** How a rule's pattern is read for a call: word-based (a command allow rule), every call (`*`), or a glob of some kind. */
function readingOf(rule: RuleLike, call: ToolCall): "command-allow" | "all" | { kind: "path" | "text"; ignoreCase: boolean } {
  const decision = rule.decision ?? "allow";
  if (call.subjectKind === "command" && decision === "allow") return "command-allow";
  if (rule.pattern.trim() === "*") return "all";
  return call.subjectKind === "path" ? { kind: "path", ignoreCase: decision !== "allow" } : { kind: "text", ignoreCase: false };
}

/** Whether the rule is for this call's tool and folder (a rule with a `cwd` applies only there). */
function appliesTo(rule: RuleLike, call: ToolCall): boolean {
  if (rule.tool !== call.tool) return false;
  return rule.cwd == null || (call.cwd != null && normaliseFolder(rule.cwd) === normaliseFolder(call.cwd));
}

export function matches(rule: RuleLike, call: ToolCall): boolean {
  if (!appliesTo(rule, call)) return false;
  const reading = readingOf(rule, call);
  if (reading === "command-allow") return !call.unbounded && allowsCommand(rule.pattern.trim(), call.subject);
  if (reading === "all") return true;
  return matchGlob(rule.pattern.trim(), call.subject, reading) || (call.subjectKind === "command" && spelledOtherwise([rule.pattern.trim()], call.subject)[0]!);
}

/** The simple commands of the last command read, each as text: every rule of a call reads the same one. */
let lastCommand: { subject: string; commands: string[][]; texts: string[] } = { subject: "", commands: [], texts: [] };
function commandsOf(subject: string) {
  if (lastCommand.subject !== subject) {
    const commands = simpleCommands(subject);
    lastCommand = { subject, commands, texts: commands.map((words) => words.join(" ")) };
  }
  return lastCommand;
}

/**
 * Which of these deny or ask patterns name one of the command's simple commands however they are
 * spelled (lib/permissions/simple-commands.ts): as words (command-rule-words.ts) when a pattern is
 * plain words, else as text against each simple command's words joined by one space (all such
 * patterns in one pass per simple command, as matchingGlobs does for the whole command).
 */
function spelledOtherwise(patterns: readonly string[], subject: string): boolean[] {
  const { commands, texts } = commandsOf(subject);
  const found = patterns.map(() => false);
  const asText: number[] = [];
  patterns.forEach((pattern, i) => {
    const words = readRuleWords(pattern);
    if (words) found[i] = commands.some((command) => ruleWordsMatch(words, command));
    else asText.push(i);
  });
  if (asText.length > 0) {
    const textPatterns = asText.map((i) => patterns[i]!);
    for (const text of texts) for (const k of matchingGlobs(textPatterns, text, { kind: "text" })) found[asText[k]!] = true;
  }
  return found;
}

/**
 * Which of `rules` match a call, all at once: the glob rules of each reading in one pass over the
 * subject (matchingGlobs), so a call's time stays bounded by the rules' total size.
 */
export function matchingRules<R extends RuleLike>(rules: readonly R[], call: ToolCall): boolean[] {
  const matched = rules.map(() => false);
  const globs = new Map<string, { reading: { kind: "path" | "text"; ignoreCase: boolean }; at: number[]; patterns: string[] }>();
  rules.forEach((rule, i) => {
    if (!appliesTo(rule, call)) return;
    const reading = readingOf(rule, call);
    if (reading === "command-allow") matched[i] = !call.unbounded && allowsCommand(rule.pattern.trim(), call.subject);
    else if (reading === "all") matched[i] = true;
    else {
      const key = `${reading.kind}:${reading.ignoreCase}`;
      const group = globs.get(key) ?? { reading, at: [], patterns: [] };
      group.at.push(i);
      group.patterns.push(rule.pattern.trim());
      globs.set(key, group);
    }
  });
  for (const { reading, at, patterns } of globs.values()) for (const k of matchingGlobs(patterns, call.subject, reading)) matched[at[k]!] = true;
  if (call.subjectKind === "command") {
    const left = rules.flatMap((rule, i) => (!matched[i] && appliesTo(rule, call) && typeof readingOf(rule, call) === "object" ? [i] : []));
    if (left.length > 0) {
      const found = spelledOtherwise(
        left.map((i) => rules[i]!.pattern.trim()),
        call.subject,
      );
      left.forEach((i, k) => (matched[i] = found[k]!));
    }
  }
  return matched;
}

const STRENGTH: Record<PermissionDecision, number> = { allow: 0, ask: 1, deny: 2 };

/**
 * What rules say about a call: a matching deny rule beats every ask and allow rule, a matching
 * ask rule every allow rule, whatever their age or source; among rules of the same decision the
 * first in `rules`' order is named. With none, a dangerous tool asks and any other is allowed.
 */
export function decide<R extends RuleWithDecision>(rules: readonly R[], call: ToolCall, dangerous: boolean): { decision: PermissionDecision; rule: R | null } {
  const matched = matchingRules(rules, call);
  let found: R | null = null;
  rules.forEach((rule, i) => {
    if (matched[i] && (found === null || STRENGTH[rule.decision] > STRENGTH[found.decision])) found = rule;
  });
  const winner = found as R | null;
  return winner ? { decision: winner.decision, rule: winner } : { decision: dangerous ? "ask" : "allow", rule: null };
}

/** Throws a 400 naming the pattern when an allow rule for a command is neither an exact command nor words then ` *`. */
export function checkCommandAllow(rule: RuleLike, subjectKind: SubjectKind | undefined): void {
  if (subjectKind !== "command" || (rule.decision ?? "allow") !== "allow") return;
  const read = readCommandAllow(rule.pattern);
  if (read.kind === "invalid") throw new AppError("bad_request", `Invalid pattern ${JSON.stringify(rule.pattern)}: ${read.reason}.`);
}
