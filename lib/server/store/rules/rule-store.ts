import type { Insertable, Selectable } from "kysely";
import type { Db } from "../db/client";
import type { SqlReader, SqlTx } from "../sql-executor";
import { statement, type DB } from "../typed-sql";

export type RuleRow = Selectable<DB["PermissionRule"]>;
type NewRule = Required<Omit<Insertable<DB["PermissionRule"]>, "createdAt">>;

/** A session's rules that apply at `now`, in the order they apply (oldest first): one whose time ended applies no more. */
const listForSession = statement((q, p: { sessionId: string; now: Date }) =>
  q
    .selectFrom("PermissionRule")
    .selectAll()
    .where("sessionId", "=", p.sessionId)
    .where((eb) => eb.or([eb("expiresAt", "is", null), eb("expiresAt", ">", p.now)]))
    .orderBy("createdAt", "asc")
    .orderBy("id", "asc"),
);

/** How many approvals of the session each rule settled (allowed or denied without a person, or closed when it was added). */
const usesInSession = statement((q, p: { sessionId: string }) =>
  q
    .selectFrom("Question")
    .select((eb) => ["closedByRule", eb.fn.countAll().as("uses")])
    .where("sessionId", "=", p.sessionId)
    .where("closedByRule", "is not", null)
    .groupBy("closedByRule"),
);

/** The session's rules whose time ended: removed when another is added, so the table holds what applies. */
const deleteEnded = statement((q, p: { sessionId: string; now: Date }) => q.deleteFrom("PermissionRule").where("sessionId", "=", p.sessionId).where("expiresAt", "<=", p.now));

const sessionExists = statement((q, p: { sessionId: string }) => q.selectFrom("ChatSession").select("id").where("id", "=", p.sessionId));

/** The session's rules equal to this one, its folder (or its lack of one) included. */
const deleteSame = statement((q, p: NewRule) =>
  q
    .deleteFrom("PermissionRule")
    .where((eb) => eb.and([eb("sessionId", "=", p.sessionId), eb("tool", "=", p.tool), eb("pattern", "=", p.pattern), eb("decision", "=", p.decision), eb("cwd", "is not distinct from", p.cwd)])),
);

const insert = statement((q, p: NewRule & { createdAt: Date }) =>
  q
    .insertInto("PermissionRule")
    .values({
      id: p.id,
      sessionId: p.sessionId,
      tool: p.tool,
      pattern: p.pattern,
      decision: p.decision,
      cwd: p.cwd,
      source: p.source,
      createdAt: p.createdAt,
      createdBy: p.createdBy,
      expiresAt: p.expiresAt,
    })
    .returningAll(),
);

const remove = statement((q, p: { sessionId: string; id: string }) => q.deleteFrom("PermissionRule").where("id", "=", p.id).where("sessionId", "=", p.sessionId));

/** A session's permission rules: the permission service speaks no SQL. */
export function createRuleStore(db: Db) {
  const { exec } = db;
  return {
    /** A session's rules that apply now, in the order they apply (oldest first), in `tx` when given. */
    list: (sessionId: string, on: SqlReader = exec): Promise<RuleRow[]> => on.rows(listForSession, { sessionId, now: new Date() }),
    /** How many approvals each of the session's rules settled, by rule id. */
    async uses(sessionId: string): Promise<Map<string, number>> {
      const rows = await exec.rows(usesInSession, { sessionId });
      return new Map(rows.map((r) => [r.closedByRule!, Number(r.uses)]));
    },
    /** Adds a rule after its session's others, in `tx` or a transaction of its own; an equal one removed, `check` sees the rest (may throw). Null: no such session. */
    add(tx: SqlTx | undefined, rule: NewRule, check: (rest: RuleRow[]) => void): Promise<RuleRow | null> {
      const add = async (tx: SqlTx) => {
        if ((await tx.rows(sessionExists, rule)).length === 0) return null;
        const now = new Date();
        await tx.changes(deleteEnded, { sessionId: rule.sessionId, now });
        await tx.changes(deleteSame, rule);
        const rest = await tx.rows(listForSession, { sessionId: rule.sessionId, now });
        check(rest);
        // Strictly after the newest rule, so rules list in the order they were added even when two share a millisecond.
        const createdAt = new Date(Math.max(now.getTime(), (rest.at(-1)?.createdAt.getTime() ?? 0) + 1));
        return (await tx.rows(insert, { ...rule, createdAt }))[0]!;
      };
      return tx ? add(tx) : exec.transaction(add);
    },
    /** Deletes a rule of this session: false when there is none by that id in it. */
    remove: async (sessionId: string, id: string): Promise<boolean> => (await exec.changes(remove, { sessionId, id })) > 0,
  };
}
