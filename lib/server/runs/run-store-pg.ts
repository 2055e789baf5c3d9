import type { PgLane } from "../db/client";
import { pgTime } from "../db/pg-lane";
import { noRunOrLeaseLost, pgHeld, type HeldEpoch } from "../cluster/lease-fence";

// Fenced by the run's lease epoch (a parameter): no row changes once another node took the run
// over (null: runs are not leased, nothing is checked).
const SAY_SQL = `WITH ${pgHeld("$1", "$12")}, said AS (
    INSERT INTO "JournalEntry" ("runId", "seq", "kind", "name", "digest", "output", "createdAt")
    SELECT $1::text, $2::int, 'say', $3::text, $4::text, $5::text, $6::timestamp(3) FROM held
  )
  INSERT INTO "Message" ("id", "sessionId", "runId", "role", "text", "stopped", "createdAt")
  SELECT $7::text, $8::text, $1::text, $9::text, $10::text, $11::boolean, $6::timestamp(3) FROM held RETURNING *`;

/** A chat message as it is inserted. */
export interface MessageInsert {
  id: string;
  sessionId: string;
  runId: string | null;
  role: string;
  text: string;
  stopped: boolean;
}

/** PostgreSQL's one-statement write of a run's chat message with its journal entry (SQLite writes both in the message's direct transaction). */
export function createPgRunStore(lane: PgLane) {
  return {
    /** A run's chat message with its journal entry, in one statement: the message's row as stored. */
    async sayWithMessage({ runId, seq, text, digest }: { runId: string; seq: number; text: string; digest: string }, message: MessageInsert, epoch?: HeldEpoch) {
      const [row] = await lane.query<MessageInsert & { createdAt: Date; sender: string | null }>(SAY_SQL, [
        runId,
        seq,
        text.slice(0, 200),
        digest,
        JSON.stringify(text),
        pgTime(new Date()),
        message.id,
        message.sessionId,
        message.role,
        message.text,
        message.stopped,
        epoch ?? null,
      ]);
      if (!row) throw noRunOrLeaseLost(runId, epoch);
      return row;
    },
  };
}
