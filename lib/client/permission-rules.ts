import type { PermissionDecision, PermissionRule, SessionRules } from "../protocol/permissions";

/** How the settings panel words a rule: where it came from, and its decision. */

export const DECISION_LABEL: Record<PermissionDecision, string> = { allow: "Allow", deny: "Deny", ask: "Ask" };

export const DECISION_HINT: Record<PermissionDecision, string> = {
  allow: "Runs without asking",
  deny: "Refused at once; the agent is told why",
  ask: "Asks you first",
};

export function sourceLabel(rule: PermissionRule): string {
  if (rule.source === "project") return "project default";
  if (rule.source === "always") return "from Allow always";
  return "added here";
}

export const UNKNOWN_TOOL_HINT = "No tool of this name is in the catalogue: the rule is kept, but matches nothing today.";

/** The rules without one the person removed (or that another tab removed first). */
export function withoutRule(rules: SessionRules | null, ruleId: string): SessionRules | null {
  return rules && { ...rules, session: rules.session.filter((r) => r.id !== ruleId) };
}

/** The rules' API paths for a session (ids encoded: a path segment each). */
export const rulesPath = (sessionId: string, ruleId?: string) =>
  `/api/sessions/${encodeURIComponent(sessionId)}/rules${ruleId === undefined ? "" : `/${encodeURIComponent(ruleId)}`}`;
