import type { QueryCreator } from "kysely";
import type { Engine } from "../db/engine";
import { statement, typedParam, type DB } from "../typed-sql";

/**
 * The sessions a reader's audit covers: their own; an administrator's (`viewer` null), every
 * session. A session being deleted is not listed. Shared sessions extend this one predicate
 * ("owner or member": an EXISTS on SessionMember for `viewer`).
 */
export const visibleSessions = (q: QueryCreator<DB>, viewer: string | null, engine: Engine) =>
  q
    .selectFrom("ChatSession as s")
    .where("s.deletedAt", "is", null)
    .where((eb) => eb.or([eb(typedParam(engine, viewer, "text"), "is", null), eb("s.ownerId", "=", viewer as string)]));

/** A session the reader may see, by its id or, failing that, the most recent one with that title. */
export const visibleSessionNamed = statement((q, p: { viewer: string | null; name: string }, engine) =>
  visibleSessions(q, p.viewer, engine)
    .select("s.id")
    .where((eb) => eb.or([eb("s.id", "=", p.name), eb("s.title", "=", p.name)]))
    .orderBy((eb) => eb.case().when("s.id", "=", p.name).then(eb.lit(0)).else(eb.lit(1)).end())
    .orderBy("s.updatedAt", "desc")
    .limit(1),
);

export interface SettledPageParams {
  viewer: string | null;
  /** One session (null: every session the reader may see). */
  sessionId: string | null;
  /** After this close time, and of those closed at that very time after this id (null: after all of them); null: from the first. */
  afterAt: Date | null;
  afterId: string | null;
  limit: number;
}

/**
 * Settled questions of the sessions the reader may see, oldest first by when they closed, then
 * by id: a cursor (closedAt, id) continues exactly after the last row read, also among rows
 * closed in one millisecond. With each: its session's title, and the rule that decided it while
 * that rule still exists (a session rule; builtin and project rules have no row).
 */
export const settledPage = statement((q, p: SettledPageParams, engine) =>
  visibleSessions(q, p.viewer, engine)
    .innerJoin("Question as q", "q.sessionId", "s.id")
    .leftJoin("PermissionRule as pr", (join) => join.onRef("pr.id", "=", "q.closedByRule").onRef("pr.sessionId", "=", "q.sessionId"))
    .selectAll("q")
    .select(["s.title as session_title", "pr.tool as rule_tool", "pr.pattern as rule_pattern", "pr.decision as rule_decision", "pr.cwd as rule_cwd"])
    .where("q.status", "<>", "pending")
    .where("q.closedAt", "is not", null)
    .where((eb) => eb.or([eb(typedParam(engine, p.sessionId, "text"), "is", null), eb("q.sessionId", "=", p.sessionId as string)]))
    .where((eb) =>
      eb.or([
        eb(typedParam(engine, p.afterAt, "timestamp(3)"), "is", null),
        eb("q.closedAt", ">", p.afterAt as Date),
        eb.and([eb("q.closedAt", "=", p.afterAt as Date), eb("q.id", ">", p.afterId as string)]),
      ]),
    )
    .orderBy("q.closedAt")
    .orderBy("q.id")
    .limit(p.limit),
);

/** The votes on some questions: the question store's statement, one copy. */
export { votesOf } from "../questions/question-statements";
