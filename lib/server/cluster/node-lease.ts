import type { Clock } from "../clock";
import { isUniqueViolation, type Db } from "../db/client";

export interface NodeLeaseOptions {
  /** The job, e.g. "expiry-timers". */
  name: string;
  nodeId: string;
  leaseMs: number;
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
 * doing the job before its lease can lapse, so two nodes never do it at once.
 */
export function createNodeLease(db: Db, { name, nodeId, leaseMs, clock, onGain, onLose, onRound }: NodeLeaseOptions) {
  let holding = false;
  let renewedAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const at = (ms: number) => new Date(clock.now() + ms);

  /** Renews or takes the lease: whether this node holds it now. */
  async function claim(): Promise<boolean> {
    const renewed = await db.nodeLease.updateMany({ where: { name, holder: nodeId }, data: { until: at(leaseMs) } });
    if (renewed.count === 1) return true;
    const taken = await db.nodeLease.updateMany({ where: { name, until: { lt: at(0) } }, data: { holder: nodeId, until: at(leaseMs), epoch: { increment: 1 } } });
    if (taken.count === 1) return true;
    try {
      await db.nodeLease.create({ data: { name, holder: nodeId, until: at(leaseMs), epoch: 1 } });
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }

  function set(now: boolean) {
    if (now === holding) return;
    holding = now;
    if (now) onGain();
    else onLose();
  }

  async function round(): Promise<void> {
    const started = clock.now();
    try {
      const held = await claim();
      if (held) renewedAt = started;
      set(held);
    } catch (err) {
      console.error(`[cluster] could not renew the ${name} lease:`, err instanceof Error ? err.message : err);
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
      await db.nodeLease.updateMany({ where: { name, holder: nodeId }, data: { until: at(-1) } }).catch(() => {});
    },
  };
}
