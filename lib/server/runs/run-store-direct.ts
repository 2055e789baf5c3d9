import { ACTIVE_RUN_STATUSES, type Run } from "../../protocol/entities";
import type { JournalRecord } from "../../protocol/ipc";
import type { DirectSqlite } from "../db/client";
import { fromSqliteBoolean, fromSqliteTime, sqliteTime } from "../db/direct-rows";
import { toRun } from "../db/mappers";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { FinalOutcome, NewRun } from "./run-store";
import { journalRecordOf, type JournalRow } from "./journal";

type Row = Record<string, unknown>;

const ACTIVE_SQL = ACTIVE_RUN_STATUSES.map((s) => `'${s}'`).join(", ");
/** What a run (its id the `?`) waits on: a pending question of its own, or an active child run it called. */
const OWN_PENDING_SQL = `EXISTS (SELECT 1 FROM "Question" WHERE "runId" = ? AND "status" = 'pending')`;
const ACTIVE_CHILD_SQL = `EXISTS (SELECT 1 FROM "JournalEntry" j JOIN "Run" c ON c."id" = j."childRunId" WHERE j."runId" = ? AND j."kind" = 'call' AND c."status" IN (${ACTIVE_SQL}))`;
/** What a run waits on, and its stored status; the run's id is each of the three parameters. PostgreSQL's lane runs it too. */
export const WAITING_ON_SQL = `SELECT ${OWN_PENDING_SQL} AS "questions", ${ACTIVE_CHILD_SQL} AS "children", (SELECT "status" FROM "Run" WHERE "id" = ?) AS "status"`;
/** A run's journal with what each question and call came to. PostgreSQL's lane runs it too. */
export const JOURNAL_SQL = `SELECT j."seq", j."kind", j."digest", j."output", j."questionId", j."childRunId",
    q."status" AS "questionStatus", q."answer" AS "questionAnswer", q."feedback" AS "questionFeedback",
    c."status" AS "childStatus", c."result" AS "childResult", c."error" AS "childError"
  FROM "JournalEntry" j
  LEFT JOIN "Question" q ON q."id" = j."questionId"
  LEFT JOIN "Run" c ON c."id" = j."childRunId"
  WHERE j."runId" = ? ORDER BY j."seq"`;

const runOf = (row: Row): Run =>
  toRun({
    ...(row as unknown as Parameters<typeof toRun>[0]),
    canAsk: fromSqliteBoolean(row.canAsk),
    createdAt: fromSqliteTime(row.createdAt)!,
    updatedAt: fromSqliteTime(row.updatedAt)!,
    finishedAt: fromSqliteTime(row.finishedAt),
  });

/**
 * The run queries of the question loop on SQLite's direct lane (see DirectSqlite): what a run
 * waits on, its status moves, its row and its journal, each one statement where Prisma sends
 * several. RunStore uses them when the lane is there.
 */
export function createDirectRunStore(direct: DirectSqlite) {
  /** The run as stored now, or null. */
  const runNow = (id: string): Run | null => {
    const row = direct.prepare(`SELECT * FROM "Run" WHERE "id" = ?`).get(id);
    return row ? runOf(row) : null;
  };
  const addActiveMsNow = (id: string, ms: number) => {
    if (ms > 0) direct.prepare(`UPDATE "Run" SET "activeMs" = "activeMs" + ?, "updatedAt" = ? WHERE "id" = ?`).run(Math.round(ms), sqliteTime(new Date()), id);
  };

  function setWaitingNow(id: string, waiting: boolean, activeMs: number): Run | null {
    addActiveMsNow(id, activeMs);
    const { changes } = direct
      .prepare(`UPDATE "Run" SET "status" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" = ?`)
      .run(waiting ? "waiting_input" : "running", sqliteTime(new Date()), id, waiting ? "running" : "waiting_input");
    return changes === 1 ? runNow(id) : null;
  }

  return {
    /** What a run waits on, and its stored status (so a status already right is not written again). */
    waitingOn: (id: string): Promise<{ questions: boolean; blocked: boolean; status: string | null }> =>
      direct.read(() => {
        const row = direct.prepare(WAITING_ON_SQL).get<{ questions: number; children: number; status: string | null }>(id, id, id)!;
        return { questions: row.questions === 1, blocked: row.questions === 1 || row.children === 1, status: row.status };
      }),

    /** Moves an active run between running and waiting_input, adding the active time it spent: the run as it is now, or null when it did not move. */
    setWaiting: (id: string, waiting: boolean, activeMs: number): Promise<Run | null> => direct.transaction(() => setWaitingNow(id, waiting, activeMs)),

    /** `setWaiting` inside a direct transaction. */
    setWaitingNow,

    /** Ends a run if it is still active (the one conditional update that decides its final state), adding its last active time; true for the call that ended it. */
    finish: (id: string, outcome: FinalOutcome, activeMs: number): Promise<boolean> =>
      direct.transaction(() => {
        addActiveMsNow(id, activeMs);
        return (
          direct
            .prepare(
              `UPDATE "Run" SET "status" = ?, "result" = ?, "error" = ?, "progress" = NULL, "finishedAt" = ?, "turnOf" = NULL, "updatedAt" = ? WHERE "id" = ? AND "status" IN (${ACTIVE_SQL})`,
            )
            .run(outcome.status, outcome.result === undefined ? null : JSON.stringify(outcome.result), outcome.error ?? null, sqliteTime(new Date()), sqliteTime(new Date()), id).changes === 1
        );
      }),

    addActiveMs: (id: string, ms: number): Promise<void> => direct.transaction(() => addActiveMsNow(id, ms)),

    markAttempt: async (id: string): Promise<void> => {
      await direct.transaction(() => direct.prepare(`UPDATE "Run" SET "attempts" = "attempts" + 1, "progress" = NULL, "updatedAt" = ? WHERE "id" = ?`).run(sqliteTime(new Date()), id));
    },

    activeChildIds: (parentRunId: string): Promise<string[]> =>
      direct.read(() => direct.prepare(`SELECT "id" FROM "Run" WHERE "parentRunId" = ? AND "status" IN (${ACTIVE_SQL})`).all<{ id: string }>(parentRunId).map((r) => r.id)),

    /** Sets an active run's progress line; true when it changed (clearing a clear one reads, and writes nothing). */
    async setProgress(id: string, progress: string | null): Promise<boolean> {
      const current = await direct.read(() => direct.prepare(`SELECT "progress" FROM "Run" WHERE "id" = ? AND "status" IN (${ACTIVE_SQL})`).get<{ progress: string | null }>(id));
      if (!current || current.progress === progress) return false;
      return direct.transaction(
        () =>
          direct.prepare(`UPDATE "Run" SET "progress" = ?, "updatedAt" = ? WHERE "id" = ? AND "status" IN (${ACTIVE_SQL})`).run(progress, sqliteTime(new Date()), id).changes === 1,
      );
    },

    /** The journal entry of a chat message, inside the message's direct transaction. */
    recordSayNow({ runId, seq, text, digest }: { runId: string; seq: number; text: string; digest: string }): void {
      direct
        .prepare(`INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "output", "createdAt") VALUES (?, ?, 'say', ?, ?, ?, ?)`)
        .run(runId, seq, text.slice(0, 200), digest, JSON.stringify(text), sqliteTime(new Date()));
    },

    /**
     * A run whose question was just answered works again when it waits on nothing else: moved to
     * running inside the answer's transaction (null when it still waits, or was not waiting).
     */
    resumeIfUnblockedNow(id: string): Run | null {
      const { changes } = direct
        .prepare(
          `UPDATE "Run" SET "status" = 'running', "updatedAt" = ? WHERE "id" = ? AND "status" = 'waiting_input' AND NOT ${OWN_PENDING_SQL} AND NOT ${ACTIVE_CHILD_SQL}`,
        )
        .run(sqliteTime(new Date()), id, id, id);
      return changes === 1 ? runNow(id) : null;
    },

    /** Inserts a run inside a direct transaction (its session checked live there): the run as stored. */
    createNow(run: NewRun): Run {
      if (!direct.prepare(`SELECT 1 AS "live" FROM "ChatSession" WHERE "id" = ? AND "deletedAt" IS NULL`).get(run.sessionId)) {
        throw new AppError("not_found:session", `No session with id ${quoteId(run.sessionId)}.`);
      }
      const at = sqliteTime(new Date());
      direct
        .prepare(
          `INSERT INTO "Run" ("id", "sessionId", "ownerId", "functionName", "input", "status", "policy", "canAsk", "rootRunId", "turnOf", "startedBy", "attempts", "activeMs", "createdAt", "updatedAt")
           VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?, ?, ?, 1, 0, ?, ?)`,
        )
        .run(
          run.id,
          run.sessionId,
          run.ownerId,
          run.functionName,
          JSON.stringify(run.input ?? null),
          JSON.stringify(run.policy),
          run.canAsk ? 1 : 0,
          run.id,
          run.turnOf ?? null,
          run.startedBy ? JSON.stringify(run.startedBy) : null,
          at,
          at,
        );
      return runNow(run.id)!;
    },

    find: (id: string): Promise<Run | null> => direct.read(() => runNow(id)),

    /** The journal with what each question and call came to, in one joined read. */
    loadJournal: (runId: string): Promise<JournalRecord[]> =>
      direct.read(() =>
        direct
          .prepare(JOURNAL_SQL)
          .all<JournalRow>(runId)
          .map((row) => journalRecordOf(row, runId)),
      ),
  };
}

export type DirectRunStore = ReturnType<typeof createDirectRunStore>;
