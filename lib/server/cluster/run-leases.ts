import { ACTIVE_RUN_STATUSES, type RunStatus } from "../../protocol/entities";
import type { Clock } from "../clock";
import type { Db } from "../db/client";

const ACTIVE: RunStatus[] = [...ACTIVE_RUN_STATUSES];

/** Whether this node may execute a run: taken, or held by another node (named) whose lease has not lapsed. */
export type LeaseTake = { ok: true } | { ok: false; owner: string };

/**
 * Who executes a run, when several nodes share one database. A node takes a run's lease before
 * it loads the run into a worker, renews it while it holds the run, and lets go when the run
 * parks or ends. A lease that lapses (its node died, or lost the database) may be taken by any
 * node: one conditional update decides who. Every take raises the run's epoch, and the end of a
 * run is written only by a node no other node's live lease excludes (the fence).
 */
export interface RunLeases {
  readonly enabled: boolean;
  readonly nodeId: string;
  /** How long a lease lasts unless renewed (0: no leases). */
  readonly leaseMs: number;
  /** Columns of a run inserted by this node and handed to its worker at once. */
  freshColumns(): { leaseOwner: string; leaseUntil: Date; leaseEpoch: number } | Record<string, never>;
  /** This node holds the run it just inserted with `freshColumns`. */
  holdFresh(runId: string): void;
  take(runId: string): Promise<LeaseTake>;
  /** Lets go (the run parked): any node may take it when it is woken. */
  release(runId: string): Promise<void>;
  /** The run ended: its end's update cleared the lease. */
  forget(runId: string): void;
  /** The condition under which this node may write a run's end, and what that write clears. */
  fence(): { where: object; clear: object };
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
  freshColumns: () => ({}),
  holdFresh() {},
  take: async () => ({ ok: true }),
  release: async () => {},
  forget() {},
  fence: () => ({ where: {}, clear: {} }),
  renew: async () => [],
  orphans: async () => [],
  lapseAll: async () => {},
  held: () => 0,
});

export interface RunLeaseOptions {
  nodeId: string;
  /** How long a lease lasts unless renewed (renewed every third of it). */
  leaseMs: number;
  clock: Clock;
}

export function createRunLeases(db: Db, { nodeId, leaseMs, clock }: RunLeaseOptions): RunLeases {
  const held = new Set<string>();
  const at = (ms: number) => new Date(clock.now() + ms);
  let lastRenewed = clock.now();
  /** Nobody else's live lease: a run this node may take, or end. */
  const free = (now: Date) => ({ OR: [{ leaseOwner: null }, { leaseOwner: nodeId }, { leaseUntil: { lt: now } }] });

  return {
    enabled: true,
    nodeId,
    leaseMs,
    freshColumns: () => ({ leaseOwner: nodeId, leaseUntil: at(leaseMs), leaseEpoch: 1 }),
    holdFresh: (runId) => void held.add(runId),

    async take(runId) {
      for (let attempt = 0; attempt < 3; attempt++) {
        const now = at(0);
        const { count } = await db.run.updateMany({
          where: { id: runId, ...free(now) },
          data: { leaseOwner: nodeId, leaseUntil: at(leaseMs), leaseEpoch: { increment: 1 } },
        });
        if (count === 1) {
          held.add(runId);
          return { ok: true };
        }
        const row = await db.run.findUnique({ where: { id: runId }, select: { leaseOwner: true, leaseUntil: true } });
        // No such run: the caller's read finds that out and ends.
        if (!row) return { ok: true };
        // Still another node's: it executes the run. Else its lease lapsed or was let go in between: try again.
        if (row.leaseOwner && row.leaseOwner !== nodeId && row.leaseUntil && row.leaseUntil.getTime() >= clock.now()) return { ok: false, owner: row.leaseOwner };
      }
      throw new Error(`the lease of run ${runId} kept changing hands`);
    },

    async release(runId) {
      held.delete(runId);
      await db.run.updateMany({ where: { id: runId, leaseOwner: nodeId }, data: { leaseOwner: null, leaseUntil: null } });
    },

    forget: (runId) => void held.delete(runId),

    fence: () => ({ where: free(at(0)), clear: { leaseOwner: null, leaseUntil: null } }),

    async renew() {
      if (held.size === 0) {
        lastRenewed = clock.now();
        return [];
      }
      const ids = [...held];
      try {
        const { count } = await db.run.updateMany({ where: { id: { in: ids }, leaseOwner: nodeId }, data: { leaseUntil: at(leaseMs) } });
        lastRenewed = clock.now();
        if (count === ids.length) return [];
        const still = new Set((await db.run.findMany({ where: { id: { in: ids }, leaseOwner: nodeId }, select: { id: true } })).map((r) => r.id));
        // Ended meanwhile (the end cleared the lease) or taken by another node: either way not ours to execute.
        const lost = ids.filter((id) => !still.has(id) && held.has(id));
        for (const id of lost) held.delete(id);
        return lost;
      } catch (err) {
        console.error("[leases] could not renew run leases:", err instanceof Error ? err.message : err);
        if (clock.now() - lastRenewed < leaseMs) return [];
        // Unreachable for longer than a lease: other nodes may have taken these runs already.
        const lost = [...held];
        held.clear();
        return lost;
      }
    },

    async orphans(limit = 100) {
      const now = at(0);
      const stale = at(-leaseMs);
      const rows = await db.run.findMany({
        where: {
          status: { in: ACTIVE },
          OR: [
            // Its node stopped renewing (this node too, when the run is not live here: the caller skips live ones).
            { leaseOwner: { not: null }, leaseUntil: { lt: now } },
            // Inserted or woken, then its node died before it took the run.
            { leaseOwner: null, status: "running", updatedAt: { lt: stale } },
            // Answered while parked, and the answering node died before it woke the run.
            { leaseOwner: null, status: "waiting_input", updatedAt: { lt: stale }, questions: { none: { status: "pending" } } },
          ],
        },
        select: { id: true, leaseOwner: true },
        orderBy: { updatedAt: "asc" },
        take: limit,
      });
      return rows.map((r) => ({ id: r.id, lapsed: r.leaseOwner !== null }));
    },

    async lapseAll() {
      const ids = [...held];
      held.clear();
      if (ids.length > 0) await db.run.updateMany({ where: { id: { in: ids }, leaseOwner: nodeId }, data: { leaseUntil: at(-1) } });
    },

    held: () => held.size,
  };
}
