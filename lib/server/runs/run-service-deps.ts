import type { Clock } from "../clock";
import type { CommandService } from "../ledger/command-ledger";
import type { Db } from "../store/db/client";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import type { QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import type { WorkerPoolPort } from "../workers/worker-port";
import type { RunLeases } from "../cluster/run-leases";
import type { ClusterLink } from "../cluster/cluster-link";

export interface RunServiceDeps {
  db: Db;
  events: DomainEvents;
  sessions: SessionService;
  questions: QuestionService;
  commands: CommandService;
  pool: WorkerPoolPort;
  clock: Clock;
  /** Names of the agent functions a run may start. */
  hasFunction: (name: string) => boolean;
  /** How long a stopped worker may take to finish before it is killed. */
  stopGraceMs?: number;
  /** How long a run may wait in its worker before it is parked, while the pool has room. */
  parkAfterMs?: number;
  /** How often a run may lose its worker while working before it fails. */
  maxWorkerLosses?: number;
  /** Counts parked runs. */
  metrics?: Pick<Metrics, "runParked" | "time"> & Partial<Pick<Metrics, "runTakenOver">>;
  /** Which node executes which run (several nodes on one database); one node executes everything by default. */
  leases?: RunLeases;
  /** How this node tells the node that executes a run about it. */
  cluster?: Pick<ClusterLink, "publish" | "on">;
}
