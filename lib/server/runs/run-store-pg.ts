import type { Run } from "../../protocol/entities";
import type { JournalRecord } from "../../protocol/ipc";
import type { JsonValue } from "../../protocol/question";
import type { PgLane } from "../db/client";
import { pgPlaceholders, pgTime } from "../db/pg-lane";
import { toRun } from "../db/mappers";
import { journalRecordOf, type JournalRow } from "./journal";
import { JOURNAL_SQL, WAITING_ON_SQL } from "./run-store-direct";
import { noRunOrLeaseLost, pgHeld, pgHolds, type HeldEpoch } from "../cluster/lease-fence";

const WAITING_ON = pgPlaceholders(WAITING_ON_SQL);
const JOURNAL = pgPlaceholders(JOURNAL_SQL);
// Each write is fenced by the run's lease epoch (a parameter): no row changes once another node
// took the run over (null: runs are not leased, nothing is checked).
const SET_WAITING_SQL = `UPDATE "Run" SET "status" = $2, "activeMs" = "activeMs" + $4, "updatedAt" = $5::timestamp(3) WHERE "id" = $1 AND "status" = $3 AND ${pgHolds("$6")} RETURNING *`;
const ADD_ACTIVE_SQL = `UPDATE "Run" SET "activeMs" = "activeMs" + $2, "updatedAt" = $3::timestamp(3) WHERE "id" = $1 AND ${pgHolds("$4")} RETURNING "id"`;
const MARK_ATTEMPT_SQL = `UPDATE "Run" SET "attempts" = "attempts" + 1, "progress" = NULL, "updatedAt" = $2::timestamp(3) WHERE "id" = $1 AND ${pgHolds("$3")} RETURNING "id"`;

const SAY_SQL = `WITH ${pgHeld("$1", "$12")}, said AS (
    INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "output", "createdAt")
    SELECT $1::text, $2::int, 'say', $3::text, $4::text, $5::text, $6::timestamp(3) FROM held
  )
  INSERT INTO "Message" ("id", "sessionId", "runId", "role", "text", "stopped", "createdAt")
  SELECT $7::text, $8::text, $1::text, $9::text, $10::text, $11::boolean, $6::timestamp(3) FROM held RETURNING *`;

const STEP_SQL = `WITH ${pgHeld("$1", "$6")}
  INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "output", "createdAt")
  SELECT $1::text, $2::int, 'step', $3::text, $4::text, $5::text, $7::timestamp(3) FROM held RETURNING "seq"`;

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
 * its move between running and waiting, its row, its attempts and active time, its steps and
 * messages, and its journal, one statement each where Prisma sends two to four. Each write is
 * fenced by the lease epoch its caller holds (see lease-fence.ts); a run's end stays with Prisma.
 */
export function createPgRunStore(lane: PgLane) {
  return {
    async waitingOn(id: string): Promise<{ questions: boolean; blocked: boolean; status: string | null }> {
      const [row] = await lane.query<{ questions: boolean; children: boolean; status: string | null }>(WAITING_ON, [id, id, id]);
      return { questions: row!.questions, blocked: row!.questions || row!.children, status: row!.status };
    },

    /** Moves an active run between running and waiting_input with the active time it spent: the run as it is now, or null when it did not move. */
    async setWaiting(id: string, waiting: boolean, activeMs: number, epoch: HeldEpoch): Promise<Run | null> {
      const [row] = await lane.query(SET_WAITING_SQL, [id, waiting ? "waiting_input" : "running", waiting ? "running" : "waiting_input", Math.round(activeMs), pgTime(new Date()), epoch ?? null]);
      if (row) return runOf(row);
      // It did not move; the time it spent is kept all the same.
      if (activeMs > 0) await lane.query(ADD_ACTIVE_SQL, [id, Math.round(activeMs), pgTime(new Date()), epoch ?? null]);
      return null;
    },

    /** Adds active time: whether the run was there (and held the epoch). */
    async addActiveMs(id: string, ms: number, epoch: HeldEpoch): Promise<boolean> {
      return (await lane.query(ADD_ACTIVE_SQL, [id, Math.round(ms), pgTime(new Date()), epoch ?? null])).length === 1;
    },

    /** Counts a worker start: whether the run was there (and held the epoch). */
    async markAttempt(id: string, epoch: HeldEpoch): Promise<boolean> {
      return (await lane.query(MARK_ATTEMPT_SQL, [id, pgTime(new Date()), epoch ?? null])).length === 1;
    },

    async find(id: string): Promise<Run | null> {
      const [row] = await lane.query(`SELECT * FROM "Run" WHERE "id" = $1`, [id]);
      return row ? runOf(row) : null;
    },

    /** A run's chat message with its journal entry, in one statement: the message's row as stored. */
    async sayWithMessage({ runId, seq, text, digest }: { runId: string; seq: number; text: string; digest: string }, message: MessageInsert, epoch?: HeldEpoch) {
      const [row] = await lane.query<MessageInsert & { createdAt: Date; sender: string | null }>(SAY_SQL, [
        runId, seq, text.slice(0, 200), digest, JSON.stringify(text), pgTime(new Date()),
        message.id, message.sessionId, message.role, message.text, message.stopped, epoch ?? null,
      ]);
      if (!row) throw noRunOrLeaseLost(runId, epoch);
      return row;
    },

    /** A step's journal entry, in one statement. */
    async recordStep({ runId, seq, name, digest, output }: { runId: string; seq: number; name: string; digest: string; output: JsonValue }, epoch: HeldEpoch): Promise<void> {
      const [row] = await lane.query(STEP_SQL, [runId, seq, name, digest, JSON.stringify(output), epoch ?? null, pgTime(new Date())]);
      if (!row) throw noRunOrLeaseLost(runId, epoch);
    },

    /** The journal with what each question and call came to, in one joined read. */
    async loadJournal(runId: string): Promise<JournalRecord[]> {
      return (await lane.query<JournalRow>(JOURNAL, [runId])).map((row) => journalRecordOf(row, runId));
    },
  };
}
