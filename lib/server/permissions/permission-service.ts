import { randomUUID } from "node:crypto";
import { quoteId } from "../../protocol/bounded-text";
import { AppError, zodAppError } from "../../protocol/errors";
import {
  PermissionRuleInputSchema,
  type AlwaysOption,
  type ApprovalSpec,
  type PermissionDecision,
  type PermissionRule,
  type PermissionRuleInput,
  type SessionRules,
  type ToolInfo,
} from "../../protocol/permissions";
import type { Db } from "../store/db/client";
import type { DomainEvents } from "../events";
import { normaliseFolder } from "../../permissions/working-folder";
import { boundByRules } from "../../protocol/command-bound";
import { describeRule } from "../../protocol/audit";
import { MAX_CHAIN_RULES } from "../../protocol/permissions";
import { runsWorkspaceCode } from "../../permissions/command-risks";
import { simpleCommands } from "../../permissions/simple-commands";
import { builtinRules } from "./builtin-rules";
import { checkCommandAllow, decide as decideByRules, matches, type ToolCall } from "./rule-decide";
import { checkPattern, MAX_SESSION_RULE_STATES, patternCost } from "./rule-match";
import { createRuleStore, type RuleRow } from "../store/rules/rule-store";
import { wideCovered } from "./wide-covered";
import type { ApprovalJudge } from "../questions/approvals";

/** Enough for any person's settings; a script adding rules in a loop stops here. */
export const MAX_SESSION_RULES = 200;

export interface PermissionServiceDeps {
  db: Db;
  events: DomainEvents;
  /** The project's default file's rules, in its order. An allow rule for a command that is not word-based throws (start-up stops). */
  projectRules: readonly PermissionRuleInput[];
  /** The tool catalogue: a rule for a tool not in it is kept, flagged `unknownTool`. */
  tools: readonly ToolInfo[];
}

/** The permission rules: what approvals are judged by, and a session's rules to list and remove. */
export interface PermissionService extends Required<ApprovalJudge> {
  /** The builtin rules, the project's and the session's. */
  list(sessionId: string): Promise<SessionRules>;
  /** Removes a rule of this session; `not_found:rule` for an id of no rule of it. Call `announce` afterwards. */
  removeRule(sessionId: string, ruleId: string): Promise<void>;
}

export function createPermissionService({ db, events, projectRules, tools }: PermissionServiceDeps): PermissionService {
  const store = createRuleStore(db);
  const known = new Set(tools.map((t) => t.name));
  const kindOf = new Map(tools.map((t) => [t.name, t.subjectKind]));
  /** Tools that change files: dangerous ones whose subject is a path (write_file, edit_file …). */
  const writers = new Set(tools.filter((t) => t.dangerous && t.subjectKind === "path").map((t) => t.name));
  const builtin = builtinRules(tools);
  const project: PermissionRule[] = projectRules.map((r, i) => {
    try {
      checkCommandAllow(r, kindOf.get(r.tool));
    } catch (err) {
      throw new Error(`Invalid project permission rule ${i} (${r.tool}): ${(err as Error).message}`, { cause: err });
    }
    return {
      ...r,
      id: `project:${i}`,
      sessionId: null,
      cwd: r.cwd == null ? null : normaliseFolder(r.cwd),
      source: "project",
      createdAt: null,
      unknownTool: !known.has(r.tool),
      subjectKind: kindOf.get(r.tool) ?? null,
    };
  });

  // Field by field: a column added to the table is not sent to clients unless it is named here.
  const toRule = (row: RuleRow, uses = 0): PermissionRule => ({
    id: row.id,
    sessionId: row.sessionId,
    tool: row.tool,
    pattern: row.pattern,
    cwd: row.cwd,
    decision: row.decision as PermissionDecision,
    source: row.source as PermissionRule["source"],
    createdAt: row.createdAt.toISOString(),
    createdBy: row.createdBy,
    expiresAt: row.expiresAt?.toISOString() ?? null,
    uses,
    unknownTool: !known.has(row.tool),
    subjectKind: kindOf.get(row.tool) ?? null,
  });

  const callOf = (approval: ApprovalSpec): ToolCall => ({
    tool: approval.tool,
    subject: approval.subject,
    subjectKind: approval.subjectKind,
    cwd: approval.cwd ?? null,
    unbounded: approval.preview.type === "command" && approval.preview.bound !== undefined && !boundByRules(approval.preview.bound),
  });

  return {
    async decide(sessionId, approval, tx) {
      const session = (await store.list(sessionId, tx)).map((row) => toRule(row));
      return decideByRules([...builtin, ...project, ...session], callOf(approval), approval.dangerous);
    },

    async addRule(sessionId, input, source, tx, { by = null, until = null } = {}) {
      checkPattern(typeof input?.pattern === "string" ? input.pattern.trim() : "");
      const parsed = PermissionRuleInputSchema.safeParse(input);
      if (!parsed.success) throw zodAppError(parsed.error, { prefix: "Invalid rule" });
      const rule = { ...parsed.data, cwd: parsed.data.cwd == null ? null : normaliseFolder(parsed.data.cwd) };
      checkCommandAllow(rule, kindOf.get(rule.tool));
      const row = await store.add(
        tx,
        {
          id: randomUUID(),
          sessionId,
          tool: rule.tool,
          pattern: rule.pattern,
          decision: rule.decision,
          cwd: rule.cwd,
          source,
          createdBy: by,
          expiresAt: until,
        },
        (rest) => {
          if (rest.length >= MAX_SESSION_RULES) throw new AppError("bad_request", `This session already has ${MAX_SESSION_RULES} rules, the most it can hold; remove some first.`);
          const states = rest.reduce((n, r) => n + patternCost(r.pattern), patternCost(rule.pattern));
          if (states > MAX_SESSION_RULE_STATES) {
            throw new AppError(
              "bad_request",
              `This session's rules would be too complex to check quickly (${states} matching states, at most ${MAX_SESSION_RULE_STATES}): remove some, or use simpler patterns.`,
            );
          }
        },
      );
      if (!row) throw new AppError("not_found:session", `No session with id ${quoteId(sessionId)}.`);
      return toRule(row);
    },

    async offered(sessionId, approval, tx) {
      const call = callOf(approval);
      if (call.unbounded) return [];
      const allowsCall = (o: AlwaysOption) => matches({ tool: approval.tool, pattern: o.pattern, decision: "allow", cwd: o.cwd }, call);
      const [exact, wider] = approval.always;
      if (!exact || !allowsCall(exact)) return [];
      if (!wider || !allowsCall(wider)) return [exact];
      const rules = [...builtin, ...project, ...(await store.list(sessionId, tx)).map((row) => toRule(row))];
      return rules.some((rule) => rule.tool === approval.tool && wideCovered(wider, approval.subjectKind, rule)) ? [exact] : [exact, wider];
    },

    async chain(sessionId, approval, tx) {
      if (approval.subjectKind !== "command" || !simpleCommands(approval.subject).some(runsWorkspaceCode)) return [];
      const rules = [...project, ...(await store.list(sessionId, tx)).map((row) => toRule(row))];
      return rules
        .filter((r) => r.decision === "allow" && writers.has(r.tool))
        .slice(-MAX_CHAIN_RULES)
        .map((r) => describeRule(r));
    },

    covers(rule, approval) {
      return matches(rule, callOf(approval));
    },

    async list(sessionId) {
      const [rows, uses] = await Promise.all([store.list(sessionId), store.uses(sessionId)]);
      return { builtin, project, session: rows.map((row) => toRule(row, uses.get(row.id))) };
    },

    async removeRule(sessionId, ruleId) {
      if (ruleId.startsWith("builtin:") && builtin.some((r) => r.id === ruleId)) {
        throw new AppError("bad_request", "That rule is built into Parley (no tool that takes a path may touch .git or .env files) and cannot be removed.");
      }
      if (ruleId.startsWith("project:") && project.some((r) => r.id === ruleId)) {
        throw new AppError("bad_request", "That rule is a project default: change it in the project's permission rules file (parley.permissions.json).");
      }
      if (!(await store.remove(sessionId, ruleId))) throw new AppError("not_found:rule", `No rule with id ${quoteId(ruleId)} in this session.`);
    },

    announce(sessionId) {
      events.emit("rules.updated", { sessionId });
    },
  };
}
