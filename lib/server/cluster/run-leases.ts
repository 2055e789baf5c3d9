import type { Clock } from "../clock";
import type { Db, Tx } from "../db/client";
import { rawSql } from "../db/raw-sql";
import { holdingEpoch } from "./lease-fence";
import { log } from "../log";

/** Whether this node may execute a run: taken (with the epoch its take set; null where runs are not leased), or held by another node (named) whose lease has not lapsed. */
export type LeaseTake = { ok: true; epoch: number | null } | { ok: false; owner: string };

/**
 * Who executes a run, when several nodes share one database. A node takes a run's lease before
 * it loads the run into a worker, renews it while it holds the run, and lets go when the run
 * parks or ends. A lease that lapses (its node died, or lost the database) may be taken by any
 * node: one conditional update decides who. Leases run on the database's clock, so nodes whose
 * clocks disagree still agree on when a lease lapses. Every take raises the run's epoch, which
 * fences every write of the node that executes the run (see lease-fence.ts).
 */
export interface RunLeases {
  readonly enabled: boolean;
  readonly nodeId: string;
  /** How long a lease lasts unless renewed (0: no leases). */
  readonly leaseMs: number;
  /** The epoch of a run this node inserts and holds at once (`holdNew`); null without leases. */
  readonly freshEpoch: number | null;
  /** Inside the insert of a new run that goes to this node's worker at once: the run is leased to this node, at `freshEpoch`. */
  holdNew(tx: Tx, runId: string): Promise<void>;
  /** The run inserted with `holdNew` was committed: this node renews its lease. */
  holdFresh(runId: string): void;
  take(runId: string): Promise<LeaseTake>;
  /** Lets go (the run parked), if this node still holds it at `epoch`: any node may take it when it is woken. */
  release(runId: string, epoch?: number | null): Promise<void>;
  /** The run ended: its end's update cleared the lease. */
  forget(runId: string): void;
  /** Renews every lease held; the runs whose lease another node took meanwhile (or all, after the database was unreachable longer than a lease). */
  renew(): Promise<string[]>;
  /** Runs no live node executes though they should be executing (their node died): candidates to take over. */
  orphans(limit?: number): Promise<Array<{ id: string; lapsed: boolean }>>;
  /** Shutdown: lets every held lease lapse now, so other nodes take the runs over at once. */
  lapseAll(): Promise<void>;
  held(): number;
}

/** One node on its own database: it executes everything (a restart resumes from the journal). */
export const noLeases = (nodeId = "local"): RunLeases => ({
  enabled: false,
  nodeId,
  leaseMs: 0,
  freshEpoch: null,
  holdNew: async () => {},
  holdFresh() {},
  take: async () => ({ ok: true, epoch: null }),
  release: async () => {},
  forget() {},
  renew: async () => [],
  orphans: async () => [],
  lapseAll: async () => {},
  held: () => 0,
});

export interface RunLeaseOptions {
  nodeId: string;
  /** How long a lease lasts unless renewed (renewed every third of it). */
  leaseMs: number;
  /** This node's clock: only to time its own renewals (how long since the last one), never to date a lease. */
  clock: Clock;
}

/** The epoch of a run inserted with its lease. */
const FRESH_EPOCH = 1;
/** Ids per statement of a renewal (well under either engine's limit of parameters). */
const IDS_PER_STATEMENT = 500;

export function createRunLeases(db: Db, { nodeId, leaseMs, clock }: RunLeaseOptions): RunLeases {
  const sql = rawSql(db);
  const { now, nowPlusMs } = sql;
  /** Nobody else's live lease: a run this node may take. */
  const FREE = `("leaseOwner" IS NULL OR "leaseOwner" = ? OR "leaseUntil" < ${now})`;
  const HOLD_NEW_SQL = `UPDATE "Run" SET "leaseOwner" = ?, "leaseUntil" = ${nowPlusMs}, "leaseEpoch" = ? WHERE "id" = ?`;
  const TAKE_SQL = `UPDATE "Run" SET "leaseOwner" = ?, "leaseUntil" = ${nowPlusMs}, "leaseEpoch" = "leaseEpoch" + 1 WHERE "id" = ? AND ${FREE} RETURNING "leaseEpoch"`;
  const HOLDER_SQL = `SELECT "leaseOwner", CASE WHEN "leaseUntil" >= ${now} THEN 1 ELSE 0 END AS "live" FROM "Run" WHERE "id" = ?`;
  /** Sets the leases of this node's runs (the ids, one `?` each) to end `ms` from now. */
  const extendSql = (count: number) => `UPDATE "Run" SET "leaseUntil" = ${nowPlusMs} WHERE "leaseOwner" = ? AND "id" IN (${Array.from({ length: count }, () => "?").join(", ")})`;
  /**
   * Active runs whose lease lapsed (their node stopped renewing; this node too, when the run is not
   * live here: the caller skips live ones), or that nobody has leased for a lease's length since
   * their last change: inserted or woken, then their node died before it took them; or answered
   * while parked, and the answering node died before it woke them. (`updatedAt` is written by the
   * node that changed the run, on its own clock: a skewed clock makes such a run a candidate
   * sooner or later, and the take decides anyway.)
   */
  const ORPHANS_SQL = `SELECT r."id", r."leaseOwner" FROM "Run" r
    WHERE r."status" IN ('running', 'waiting_input') AND (
      (r."leaseOwner" IS NOT NULL AND r."leaseUntil" < ${now})
      OR (r."leaseOwner" IS NULL AND r."updatedAt" < ${nowPlusMs}
        AND (r."status" = 'running' OR NOT EXISTS (SELECT 1 FROM "Question" q WHERE q."runId" = r."id" AND q."status" = 'pending')))
    )
    ORDER BY r."updatedAt" LIMIT ?`;

  const held = new Set<string>();
  let lastRenewed = clock.now();

  /** Sets the leases of `ids` this node holds to end `ms` from the database's now: how many it still held. */
  async function extend(ids: string[], ms: number): Promise<number> {
    let count = 0;
    for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
      const chunk = ids.slice(i, i + IDS_PER_STATEMENT);
      count += await sql.execute(extendSql(chunk.length), [ms, nodeId, ...chunk]);
    }
    return count;
  }

  return {
    enabled: true,
    nodeId,
    leaseMs,
    freshEpoch: FRESH_EPOCH,
    holdNew: async (tx, runId) => void (await sql.execute(HOLD_NEW_SQL, [nodeId, leaseMs, FRESH_EPOCH, runId], tx)),
    holdFresh: (runId) => void held.add(runId),

    async take(runId) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const [taken] = await sql.query<{ leaseEpoch: number }>(TAKE_SQL, [nodeId, leaseMs, runId, nodeId]);
        if (taken) {
          held.add(runId);
          return { ok: true, epoch: taken.leaseEpoch };
        }
        const [row] = await sql.query<{ leaseOwner: string | null; live: number }>(HOLDER_SQL, [runId]);
        // No such run: the caller's read finds that out and ends.
        if (!row) return { ok: true, epoch: null };
        // Still another node's: it executes the run. Else its lease lapsed or was let go in between: try again.
        if (row.leaseOwner && row.leaseOwner !== nodeId && row.live === 1) return { ok: false, owner: row.leaseOwner };
      }
      throw new Error(`the lease of run ${runId} kept changing hands`);
    },

    async release(runId, epoch) {
      held.delete(runId);
      await db.run.updateMany({
        where: { id: runId, leaseOwner: nodeId, ...holdingEpoch(epoch) },
        data: { leaseOwner: null, leaseUntil: null },
      });
    },

    forget: (runId) => void held.delete(runId),

    async renew() {
      if (held.size === 0) {
        lastRenewed = clock.now();
        return [];
      }
      const ids = [...held];
      try {
        const count = await extend(ids, leaseMs);
        lastRenewed = clock.now();
        if (count === ids.length) return [];
        const still = new Set((await db.run.findMany({ where: { id: { in: ids }, leaseOwner: nodeId }, select: { id: true } })).map((r) => r.id));
        // Ended meanwhile (the end cleared the lease) or taken by another node: either way not ours to execute.
        const lost = ids.filter((id) => !still.has(id) && held.has(id));
        for (const id of lost) held.delete(id);
        return lost;
      } catch (err) {
        log.error({ reason: err instanceof Error ? err.message : err }, "[leases] could not renew run leases");
        if (clock.now() - lastRenewed < leaseMs) return [];
        // Unreachable for longer than a lease: other nodes may have taken these runs already.
        const lost = [...held];
        held.clear();
        return lost;
      }
    },

    async orphans(limit = 100) {
      const rows = await sql.query<{ id: string; leaseOwner: string | null }>(ORPHANS_SQL, [-leaseMs, limit]);
      return rows.map((r) => ({ id: r.id, lapsed: r.leaseOwner !== null }));
    },

    async lapseAll() {
      const ids = [...held];
      held.clear();
      if (ids.length > 0) await extend(ids, -1);
    },

    held: () => held.size,
  };
}
