import { createDb } from "../../lib/server/store/db/client";
import { createParley, type Parley } from "../../lib/server/app";
import type { Clock } from "../../lib/server/clock";
import { createClusterLink, type ClusterLink } from "../../lib/server/cluster/cluster-link";
import { FakePool, until, type FakeWorker } from "./fakes";

// Several nodes on one database in one process, with fake worker pools and an in-process bus
// between them: the run leases, cross-node delivery and takeover, without processes.

export interface TestNode {
  parley: Parley;
  pool: FakePool;
  link: ClusterLink;
}

/** A node on the database at `url`, its time told by `clock` (its leases by the database's), leasing runs for `leaseMs`. */
export async function startNode(url: string, { clock, leaseMs }: { clock: Clock; leaseMs: number }): Promise<TestNode> {
  const db = await createDb(url);
  const pool = new FakePool(4);
  const link = createClusterLink();
  const functions = ["f", "chat"].map((name) => ({ name, description: name }));
  const parley = await createParley({ db, pool, functions, clock, cluster: link }, { parkAfterMs: 3_000, stopGraceMs: 1_000, inboxPollMs: 60_000, runLeaseMs: leaseMs });
  return { parley, pool, link };
}

/** Every node hears what the others publish (asynchronously, as over Redis), while `busUp()`. */
export function connectNodes(all: TestNode[], busUp: () => boolean = () => true): void {
  for (const node of all) {
    node.link.attach({
      send: (m) => {
        for (const other of all) if (other !== node && busUp()) setImmediate(() => other.link.receive(m));
      },
      status: () => (busUp() ? "connected" : "lost"),
    });
  }
}

/** The worker the node started (or replayed) the run in, once it has been sent `starts` run.start messages for it. */
export function workerOf(node: TestNode, runId: string, starts = 1, ms?: number): Promise<FakeWorker> {
  return until(() => {
    const all = node.pool.created.flatMap((w) =>
      w
        .sentOf("run.start")
        .filter((m) => m.runId === runId)
        .map(() => w),
    );
    return all.length >= starts ? all.at(-1)! : undefined;
  }, ms);
}

/** The run.start messages the node sent for a run. */
export const startsOf = (node: TestNode, runId: string) => node.pool.created.flatMap((w) => w.sentOf("run.start")).filter((m) => m.runId === runId);

/** A run of `f` started on the node, working in its worker. */
export async function startOn(node: TestNode) {
  const session = await node.parley.sessions.createSession();
  const run = await node.parley.runs.startRun({ sessionId: session.id, functionName: "f" });
  const worker = await workerOf(node, run.id);
  await until(() => node.parley.runs.liveStates()[run.id] === "working");
  return { run, worker, session };
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
