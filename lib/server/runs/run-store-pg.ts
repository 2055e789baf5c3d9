import type { Run } from "../../protocol/entities";
import type { JournalRecord } from "../../protocol/ipc";
import type { PgLane } from "../db/client";
import { pgPlaceholders, pgTime } from "../db/pg-lane";
import { toRun } from "../db/mappers";
import { journalRecordOf, type JournalRow } from "./journal";
import { JOURNAL_SQL, WAITING_ON_SQL } from "./run-store-direct";

const WAITING_ON = pgPlaceholders(WAITING_ON_SQL);
const JOURNAL = pgPlaceholders(JOURNAL_SQL);
const SET_WAITING_SQL = `UPDATE "Run" SET "status" = $2, "activeMs" = "activeMs" + $4, "updatedAt" = $5::timestamp(3) WHERE "id" = $1 AND "status" = $3 RETURNING *`;
const ADD_ACTIVE_SQL = `UPDATE "Run" SET "activeMs" = "activeMs" + $2, "updatedAt" = $3::timestamp(3) WHERE "id" = $1`;
const MARK_ATTEMPT_SQL = `UPDATE "Run" SET "attempts" = "attempts" + 1, "progress" = NULL, "updatedAt" = $2::timestamp(3) WHERE "id" = $1`;

const SAY_SQL = `WITH said AS (
    INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "output", "createdAt") VALUES ($1, $2, 'say', $3, $4, $5, $6::timestamp(3))
  )
  INSERT INTO "Message" ("id", "sessionId", "runId", "role", "text", "stopped", "createdAt") VALUES ($7, $8, $1, $9, $10, $11, $6::timestamp(3)) RETURNING *`;

/** A chat message as it is inserted. */
export interface MessageInsert {
  id: string;
  sessionId: string;
  runId: string | null;
  role: string;
  text: string;
  stopped: boolean;
}

const runOf = (row: Record<string, unknown>): Run => toRun(row as unknown as Parameters<typeof toRun>[0]);

/**
 * The run queries of the question loop on PostgreSQL's lane (see PgLane): what a run waits on,
 * its move between running and waiting, its row, its attempts and active time, and its journal,
 * one statement each where Prisma sends two to four. None of them touches a run's lease: a run's
 * end, which the lease fences, stays with Prisma.
 */
export function createPgRunStore(lane: PgLane) {
  return {
    async waitingOn(id: string): Promise<{ questions: boolean; blocked: boolean; status: string | null }> {
      const [row] = await lane.query<{ questions: boolean; children: boolean; status: string | null }>(WAITING_ON, [id, id, id]);
      return { questions: row!.questions, blocked: row!.questions || row!.children, status: row!.status };
    },

    /** Moves an active run between running and waiting_input with the active time it spent: the run as it is now, or null when it did not move. */
    async setWaiting(id: string, waiting: boolean, activeMs: number): Promise<Run | null> {
      const [row] = await lane.query(SET_WAITING_SQL, [id, waiting ? "waiting_input" : "running", waiting ? "running" : "waiting_input", Math.round(activeMs), pgTime(new Date())]);
      if (row) return runOf(row);
      // It did not move; the time it spent is kept all the same.
      if (activeMs > 0) await lane.query(ADD_ACTIVE_SQL, [id, Math.round(activeMs), pgTime(new Date())]);
      return null;
    },

    async addActiveMs(id: string, ms: number): Promise<void> {
      await lane.query(ADD_ACTIVE_SQL, [id, Math.round(ms), pgTime(new Date())]);
    },

    async markAttempt(id: string): Promise<void> {
      await lane.query(MARK_ATTEMPT_SQL, [id, pgTime(new Date())]);
    },

    async find(id: string): Promise<Run | null> {
      const [row] = await lane.query(`SELECT * FROM "Run" WHERE "id" = $1`, [id]);
      return row ? runOf(row) : null;
    },

    /** A run's chat message with its journal entry, in one statement: the message's row as stored. */
    async sayWithMessage({ runId, seq, text, digest }: { runId: string; seq: number; text: string; digest: string }, message: MessageInsert) {
      const [row] = await lane.query<MessageInsert & { createdAt: Date }>(SAY_SQL, [
        runId, seq, text.slice(0, 200), digest, JSON.stringify(text), pgTime(new Date()),
        message.id, message.sessionId, message.role, message.text, message.stopped,
      ]);
      return row!;
    },

    /** The journal with what each question and call came to, in one joined read. */
    async loadJournal(runId: string): Promise<JournalRecord[]> {
      return (await lane.query<JournalRow>(JOURNAL, [runId])).map((row) => journalRecordOf(row, runId));
    },
  };
}
