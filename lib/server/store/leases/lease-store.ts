import { dbNow, dbNowPlusMs } from "../db-clock";
import type { SqlExecutor, SqlTx } from "../sql-executor";
import { jsonIds, statement, typedParam } from "../typed-sql";

type RunLease = { runId: string; nodeId: string; ms: number };

const holdNew = statement((q, p: RunLease & { epoch: number }, engine) =>
  q
    .updateTable("Run")
    .set({ leaseOwner: p.nodeId, leaseUntil: dbNowPlusMs(engine, p.ms), leaseEpoch: p.epoch })
    .where("id", "=", p.runId),
);

/** Nobody else's live lease: one conditional update decides who takes a run. */
const take = statement((q, p: RunLease, engine) =>
  q
    .updateTable("Run")
    .set((eb) => ({ leaseOwner: p.nodeId, leaseUntil: dbNowPlusMs(engine, p.ms), leaseEpoch: eb("leaseEpoch", "+", 1) }))
    .where("id", "=", p.runId)
    .where((eb) => eb.or([eb("leaseOwner", "is", null), eb("leaseOwner", "=", p.nodeId), eb("leaseUntil", "<", dbNow(engine))]))
    .returning("leaseEpoch"),
);

const holder = statement((q, p: { runId: string }, engine) =>
  q
    .selectFrom("Run")
    .select((eb) => ["leaseOwner", eb.case().when("leaseUntil", ">=", dbNow(engine)).then(eb.lit(1)).else(eb.lit(0)).end().as("live")])
    .where("id", "=", p.runId),
);

const release = statement((q, p: { runId: string; nodeId: string; epoch: number | null; at: Date }, engine) =>
  q
    .updateTable("Run")
    .set({ leaseOwner: null, leaseUntil: null, updatedAt: p.at })
    .where("id", "=", p.runId)
    .where("leaseOwner", "=", p.nodeId)
    .where((eb) => eb.or([eb(typedParam(engine, p.epoch, "integer"), "is", null), eb("leaseEpoch", "=", p.epoch as number)])),
);

const extend = statement((q, p: { ids: string; nodeId: string; ms: number }, engine) =>
  q.updateTable("Run").set("leaseUntil", dbNowPlusMs(engine, p.ms)).where("leaseOwner", "=", p.nodeId).where("id", "in", jsonIds(engine, p.ids)),
);

const holding = statement((q, p: { ids: string; nodeId: string }, engine) => q.selectFrom("Run").select("id").where("leaseOwner", "=", p.nodeId).where("id", "in", jsonIds(engine, p.ids)));

const orphans = statement((q, p: { ms: number; limit: number }, engine) =>
  q
    .selectFrom("Run as r")
    .select(["r.id", "r.leaseOwner"])
    .where("r.status", "in", ["running", "waiting_input"])
    .where((eb) =>
      eb.or([
        eb.and([eb("r.leaseOwner", "is not", null), eb("r.leaseUntil", "<", dbNow(engine))]),
        eb.and([
          eb("r.leaseOwner", "is", null),
          eb("r.updatedAt", "<", dbNowPlusMs(engine, p.ms)),
          eb.or([eb("r.status", "=", "running"), eb.not(eb.exists(eb.selectFrom("Question as q").select("q.id").whereRef("q.runId", "=", "r.id").where("q.status", "=", "pending")))]),
        ]),
      ]),
    )
    .orderBy("r.updatedAt")
    .limit(p.limit),
);

type JobLease = { name: string; holder: string; ms: number };

const extendJob = statement((q, p: JobLease, engine) => q.updateTable("NodeLease").set("until", dbNowPlusMs(engine, p.ms)).where("name", "=", p.name).where("holder", "=", p.holder));

const takeJob = statement((q, p: JobLease, engine) =>
  q
    .updateTable("NodeLease")
    .set((eb) => ({ holder: p.holder, until: dbNowPlusMs(engine, p.ms), epoch: eb("epoch", "+", 1) }))
    .where("name", "=", p.name)
    .where("until", "<", dbNow(engine)),
);

const createJob = statement((q, p: JobLease, engine) =>
  q
    .insertInto("NodeLease")
    .values({ name: p.name, holder: p.holder, until: dbNowPlusMs(engine, p.ms), epoch: 1 })
    .onConflict((oc) => oc.column("name").doNothing()),
);

/**
 * Leases, on the database's clock (db-clock.ts): a run's (who executes it, and the epoch that
 * fences that node's writes) and a job's (which node does it for all).
 */
export function createLeaseStore(exec: SqlExecutor) {
  return {
    /** Inside the insert of a new run: the run is leased to `nodeId` for `ms`, at `epoch`. */
    holdNew: async (tx: SqlTx, runId: string, nodeId: string, ms: number, epoch: number) => void (await tx.changes(holdNew, { runId, nodeId, ms, epoch })),
    /** Leases the run to `nodeId` for `ms` unless another node holds a live lease: the epoch the take raised, or null. */
    take: async (runId: string, nodeId: string, ms: number) => (await exec.write(take, { runId, nodeId, ms }))[0]?.leaseEpoch ?? null,
    /** Who holds the run's lease, and whether it is live (undefined: no such run). */
    holder: async (runId: string) => (await exec.rows(holder, { runId })).map((r) => ({ owner: r.leaseOwner, live: r.live === 1 }))[0],
    /** Clears the run's lease if `nodeId` holds it (at `epoch`, unless null); `at` is the run's change. */
    release: async (runId: string, nodeId: string, epoch: number | null, at: Date) => void (await exec.changes(release, { runId, nodeId, epoch, at })),
    /** Sets the leases `nodeId` holds of `runIds` to end `ms` from now (negative: lapsed): how many it held. */
    extend: (runIds: string[], nodeId: string, ms: number) => exec.changes(extend, { ids: JSON.stringify(runIds), nodeId, ms }),
    /** Those of `runIds` whose lease `nodeId` holds. */
    holding: async (runIds: string[], nodeId: string) => (await exec.rows(holding, { ids: JSON.stringify(runIds), nodeId })).map((r) => r.id),
    /**
     * Active runs whose lease lapsed (this node's too: the caller skips runs live here), or that
     * nobody has leased for `leaseMs` since their last change (inserted or woken, then their node
     * died before it took them; or answered while parked, and the answering node died before it
     * woke them). `updatedAt` is written on the changing node's clock: a skewed clock makes such a
     * run a candidate sooner or later, and the take decides anyway.
     */
    orphans: async (leaseMs: number, limit: number) => (await exec.rows(orphans, { ms: -leaseMs, limit })).map((r) => ({ id: r.id, lapsed: r.leaseOwner !== null })),
    /** Renews, takes (once lapsed) or makes the job's lease for `ms`: whether `nodeId` holds it now. */
    async claimJob(name: string, nodeId: string, ms: number) {
      const p = { name, holder: nodeId, ms };
      return (await exec.changes(extendJob, p)) === 1 || (await exec.changes(takeJob, p)) === 1 || (await exec.changes(createJob, p)) === 1;
    },
    /** Sets the job's lease to end `ms` from now if `nodeId` holds it (negative: lapsed). */
    extendJob: (name: string, nodeId: string, ms: number) => exec.changes(extendJob, { name, holder: nodeId, ms }),
  };
}

export type LeaseStore = ReturnType<typeof createLeaseStore>;
