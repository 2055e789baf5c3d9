import type { Insertable, Selectable } from "kysely";
import type { Db } from "../../db/client";
import { storeLanes, type SqlTx } from "../sql-executor";
import { statement, type DB } from "../typed-sql";

export type RuleRow = Selectable<DB["PermissionRule"]>;
export type NewRuleRow = Required<Insertable<DB["PermissionRule"]>> & { createdAt: Date };

/** A session's rules in the order they apply (oldest first). */
const listForSession = statement((q, p: { sessionId: string }) => q.selectFrom("PermissionRule").selectAll().where("sessionId", "=", p.sessionId).orderBy("createdAt", "asc").orderBy("id", "asc"));

const sessionExists = statement((q, p: { sessionId: string }) => q.selectFrom("ChatSession").select("id").where("id", "=", p.sessionId));

/** The session's rules equal to this one, its folder (or its lack of one) included. */
const deleteSame = statement((q, p: Pick<RuleRow, "sessionId" | "tool" | "pattern" | "decision" | "cwd">) =>
  q
    .deleteFrom("PermissionRule")
    .where("sessionId", "=", p.sessionId)
    .where("tool", "=", p.tool)
    .where("pattern", "=", p.pattern)
    .where("decision", "=", p.decision)
    .where("cwd", "is not distinct from", p.cwd),
);

const insert = statement((q, p: NewRuleRow) =>
  q
    .insertInto("PermissionRule")
    .values({ id: p.id, sessionId: p.sessionId, tool: p.tool, pattern: p.pattern, decision: p.decision, cwd: p.cwd, source: p.source, createdAt: p.createdAt })
    .returningAll(),
);

const deleteOfSession = statement((q, p: { sessionId: string; id: string }) => q.deleteFrom("PermissionRule").where("id", "=", p.id).where("sessionId", "=", p.sessionId));

/** Every permission rule statement: the permission service speaks no SQL. */
export function createRuleStore(db: Db) {
  const { exec } = storeLanes(db);
  return {
    /** A session's rules in the order they apply (oldest first), in `tx` when given. */
    listForSession: (sessionId: string, tx?: SqlTx): Promise<RuleRow[]> => (tx ? tx.rows(listForSession, { sessionId }) : exec.read(listForSession, { sessionId })),

    sessionExists: async (tx: SqlTx, sessionId: string): Promise<boolean> => (await tx.rows(sessionExists, { sessionId })).length > 0,

    /** Removes the session's rules equal to this one (a rule added again moves to the end). */
    deleteSame: (tx: SqlTx, rule: Pick<RuleRow, "sessionId" | "tool" | "pattern" | "decision" | "cwd">): Promise<number> => tx.changes(deleteSame, rule),

    insert: async (tx: SqlTx, row: NewRuleRow): Promise<RuleRow> => (await tx.rows(insert, row))[0]!,

    /** Deletes a rule of this session; 0 when there is none by that id in it. */
    deleteOfSession: (sessionId: string, id: string): Promise<number> => exec.changes(deleteOfSession, { sessionId, id }),

    /** Runs `work` in a transaction of its own. */
    transaction: <T>(work: (tx: SqlTx) => Promise<T>): Promise<T> => exec.transaction(work),
  };
}

export type RuleStore = ReturnType<typeof createRuleStore>;
