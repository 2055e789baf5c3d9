import type { Clock } from "../clock";
import type { Db } from "../store/db/client";
import { createLeaseStore } from "../store/leases/lease-store";
import { log } from "../log";

export interface NodeLeaseOptions {
  /** The job, e.g. "expiry-timers". */
  name: string;
  nodeId: string;
  leaseMs: number;
  /** This node's clock: only to time its own rounds, never to date the lease (the database's clock does). */
  clock: Clock;
  /** This node now does the job (it took the lease). */
  onGain(): void;
  /** This node no longer does it (another took the lease, or it could not renew in time). */
  onLose(): void;
  /** Every round while it holds the lease. */
  onRound?(): void;
}

/**
 * A job one node of several does for all, decided by a lease row: the holder renews it every
 * third of its length; when it lapses another node takes it. A holder that cannot renew stops
 * doing the job before its lease can lapse, so two nodes never do it at once. The lease's times
 * are the database's, so nodes whose clocks disagree still agree on when it lapses.
 */
export function createNodeLease(db: Db, { name, nodeId, leaseMs, clock, onGain, onLose, onRound }: NodeLeaseOptions) {
  let holding = false;
  let renewedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const store = createLeaseStore(db.exec);

  function set(now: boolean) {
    if (now === holding) return;
    holding = now;
    if (now) onGain();
    else onLose();
  }

  async function round(): Promise<void> {
    const started = clock.now();
    try {
      const held = await store.claimJob(name, nodeId, leaseMs);
      if (held) renewedAt = started;
      set(held);
    } catch (err) {
      log.error({ reason: err instanceof Error ? err.message : err }, `[cluster] could not renew the ${name} lease`);
    }
    // Unrenewed for most of a lease: let go before another node may take it.
    if (holding && clock.now() - renewedAt > (leaseMs * 2) / 3) set(false);
    if (holding) onRound?.();
  }

  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => void round().finally(schedule), leaseMs / 3);
    timer.unref();
  }

  return {
    /** Takes part: the first round now, then every third of a lease. */
    async start(): Promise<void> {
      await round();
      schedule();
    },
    holding: () => holding,
    /** Shutdown: the lease lapses now, so another node takes the job at its next round. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      if (!holding) return;
      set(false);
      await store.extendJob(name, nodeId, -1).catch(() => {});
    },
  };
}
