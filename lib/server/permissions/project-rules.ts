import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { describeZodError } from "../../protocol/errors";
import { PermissionRuleInputSchema, type PermissionRuleInput } from "../../protocol/permissions";
import { checkPattern } from "./rule-match";

/** The project's default rules: this file in the project root, unless PARLEY_PERMISSIONS_FILE names another. */
export const PROJECT_RULES_FILE = "parley.permissions.json";
const MAX_PROJECT_RULES = 500;

export const ProjectRulesFileSchema = z.strictObject({
  /** A matching deny rule beats every ask and allow rule, an ask rule every allow rule, whatever their order (docs/permissions.md). */
  rules: z.array(PermissionRuleInputSchema).max(MAX_PROJECT_RULES),
});

/**
 * Reads the project's default rules (a relative name is taken from the working directory, the
 * project root for the server). No file means no rules; a file that is not JSON, not of the
 * shape `{ "rules": [{ "tool", "pattern", "decision" }] }` or with an invalid pattern throws an
 * Error naming the file and the problem (server start-up stops with it).
 */
export function loadProjectRules(name: string = PROJECT_RULES_FILE): PermissionRuleInput[] {
  const file = path.resolve(name);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw new Error(`Cannot read the permission rules file ${file}: ${(err as Error).message}`, { cause: err });
  }
  return parseProjectRules(text, file);
}

/** Parses the file's text; `file` only names it in errors. */
export function parseProjectRules(text: string, file: string): PermissionRuleInput[] {
  const fail = (problem: string) => new Error(`Invalid permission rules file ${file}: ${problem}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw fail(`not valid JSON (${(err as Error).message})`);
  }
  const parsed = ProjectRulesFileSchema.safeParse(data);
  if (!parsed.success) throw fail(`${describeZodError(parsed.error)}. Expected { "rules": [{ "tool": "shell", "pattern": "npm test *", "decision": "allow" | "deny" | "ask" }] }`);
  parsed.data.rules.forEach((rule, i) => {
    try {
      checkPattern(rule.pattern);
    } catch (err) {
      throw fail(`rules.${i} (${rule.tool}): ${(err as Error).message}`);
    }
  });
  return parsed.data.rules;
}
