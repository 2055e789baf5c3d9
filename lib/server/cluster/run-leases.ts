import type { Clock } from "../clock";
import type { Db } from "../store/db/client";
import { createLeaseStore } from "../store/leases/lease-store";
import { type SqlTx } from "../store/sql-executor";
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
  holdNew(tx: SqlTx, runId: string): Promise<void>;
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

export function createRunLeases(db: Db, { nodeId, leaseMs, clock }: RunLeaseOptions): RunLeases {
  const { exec } = db;
  const store = createLeaseStore(exec);
  const held = new Set<string>();
  let lastRenewed = clock.now();

  return {
    enabled: true,
    nodeId,
    leaseMs,
    freshEpoch: FRESH_EPOCH,
    holdNew: (tx, runId) => store.holdNew(tx, runId, nodeId, leaseMs, FRESH_EPOCH),
    holdFresh: (runId) => void held.add(runId),

    async take(runId) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const epoch = await store.take(runId, nodeId, leaseMs);
        if (epoch !== null) {
          held.add(runId);
          return { ok: true, epoch };
        }
        const row = await store.holder(runId);
        // No such run: the caller's read finds that out and ends.
        if (!row) return { ok: true, epoch: null };
        // Still another node's: it executes the run. Else its lease lapsed or was let go in between: try again.
        if (row.owner && row.owner !== nodeId && row.live) return { ok: false, owner: row.owner };
      }
      throw new Error(`the lease of run ${runId} kept changing hands`);
    },

    async release(runId, epoch) {
      held.delete(runId);
      // The run's change time, as Prisma's @updatedAt wrote it: a run let go is no orphan for a lease's length.
      await store.release(runId, nodeId, epoch ?? null, new Date());
    },

    forget: (runId) => void held.delete(runId),

    async renew() {
      if (held.size === 0) {
        lastRenewed = clock.now();
        return [];
      }
      const ids = [...held];
      try {
        const count = await store.extend(ids, nodeId, leaseMs);
        lastRenewed = clock.now();
        if (count === ids.length) return [];
        const still = new Set(await store.holding(ids, nodeId));
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

    orphans: (limit = 100) => store.orphans(leaseMs, limit),

    async lapseAll() {
      const ids = [...held];
      held.clear();
      if (ids.length > 0) await store.extend(ids, nodeId, -1);
    },

    held: () => held.size,
  };
}
