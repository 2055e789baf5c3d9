import { readCommandAllow } from "../../permissions/command-allow";
import { unescapePattern } from "../../permissions/pattern-text";
import { normaliseFolder } from "../../permissions/working-folder";
import type { AlwaysOption, SubjectKind } from "../../protocol/permissions";
import type { RuleWithDecision } from "./rule-decide";

/**
 * Whether a wider "Allow always" option would be useless: a deny or ask rule (which beat every
 * allow rule) stops every call it would allow. Judged on the patterns' text, conservatively: a
 * rule that stops only some of those calls does not count.
 * - a command option `git push *`: a rule whose pattern is `*`, or literal text then one final
 *   `*` that every such call starts with (`git push*`, `git *`, `sudo *` for `sudo …`);
 * - a path option `docs/**`: a rule `*`, `**`, the same pattern, or a folder above it (`**` under `a/` for `a/docs/**`).
 */
export function wideCovered(option: AlwaysOption, subjectKind: SubjectKind, rule: RuleWithDecision): boolean {
  if (rule.decision === "allow") return false;
  if (rule.cwd != null && (option.cwd == null || normaliseFolder(rule.cwd) !== normaliseFolder(option.cwd))) return false;
  const pattern = rule.pattern.trim();
  if (pattern === "*") return true;
  if (subjectKind === "command") {
    const wide = readCommandAllow(option.pattern);
    if (wide.kind !== "wide") return false;
    const { text, wild } = unescapePattern(pattern);
    if (wild.length !== 1 || wild[0] !== text.length - 1) return false;
    const start = unescapePattern(option.pattern.trim().slice(0, -1)).text.trimEnd();
    return `${start} `.startsWith(text.slice(0, -1));
  }
  if (subjectKind === "path") {
    if (pattern === "**" || pattern === option.pattern) return true;
    if (!pattern.endsWith("/**") || !option.pattern.endsWith("/**")) return false;
    const above = unescapePattern(pattern.slice(0, -3));
    return above.wild.length === 0 && `${unescapePattern(option.pattern.slice(0, -3)).text}/`.startsWith(`${above.text}/`);
  }
  return false;
}
