import type { PermissionRule as RuleRow } from "../../generated/prisma/client";
import type { Db, Tx } from "../db/client";

export type { RuleRow };

export interface NewRuleRow {
  id: string;
  sessionId: string;
  tool: string;
  pattern: string;
  decision: string;
  cwd: string | null;
  source: string;
  createdAt: Date;
}

/** Every permission rule query: the permission service does not speak Prisma. */
export function createRuleStore(db: Db) {
  return {
    /** A session's rules in the order they apply (oldest first). */
    listForSession: (sessionId: string, tx: Tx | Db = db): Promise<RuleRow[]> => tx.permissionRule.findMany({ where: { sessionId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] }),

    count: (tx: Tx, sessionId: string): Promise<number> => tx.permissionRule.count({ where: { sessionId } }),

    latestCreatedAt: async (tx: Tx, sessionId: string): Promise<Date | null> =>
      (await tx.permissionRule.findFirst({ where: { sessionId }, orderBy: { createdAt: "desc" }, select: { createdAt: true } }))?.createdAt ?? null,

    sessionExists: async (tx: Tx, sessionId: string): Promise<boolean> => (await tx.chatSession.findUnique({ where: { id: sessionId }, select: { id: true } })) !== null,

    /** Removes the session's rules equal to this one, its folder included (a rule added again moves to the end). */
    deleteSame: (tx: Tx, rule: { sessionId: string; tool: string; pattern: string; decision: string; cwd: string | null }): Promise<{ count: number }> => tx.permissionRule.deleteMany({ where: rule }),

    insert: (tx: Tx, data: NewRuleRow): Promise<RuleRow> => tx.permissionRule.create({ data }),

    /** Deletes a rule of this session; 0 when there is none by that id in it. */
    deleteOfSession: async (sessionId: string, id: string): Promise<number> => (await db.permissionRule.deleteMany({ where: { id, sessionId } })).count,
  };
}

export type RuleStore = ReturnType<typeof createRuleStore>;
