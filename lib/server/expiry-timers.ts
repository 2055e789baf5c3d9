import type { Clock } from "./clock";
import type { Db } from "./store/db/client";
import type { ClusterLink } from "./cluster/cluster-link";
import { createNodeLease } from "./cluster/node-lease";
import type { QuestionService, QuestionServiceDeps } from "./questions/question-service";
import { log } from "./log";

type TimerKeeper = Pick<QuestionService, "rescheduleExpiries" | "dropTimers" | "expireAt">;

/** Several nodes: one of them keeps the questions' expiry timers; the others hand it theirs. */
export interface ExpiryTimers {
  /** For the question service: whether this node keeps the timers now, and how it hands one to the node that does. */
  timerOwner: NonNullable<QuestionServiceDeps["timerOwner"]>;
  /** Takes part, keeping the timers of `questions` while this node holds the lease; timers handed off by other nodes are kept too. */
  start(questions: TimerKeeper): Promise<void>;
  holding(): boolean;
  /** Shutdown: the lease lapses now, so another node keeps the timers at its next round. */
  stop(): Promise<void>;
}

export function createExpiryTimers({ db, cluster, clock, leaseMs }: { db: Db; cluster: ClusterLink; clock: Clock; leaseMs: number }): ExpiryTimers {
  // The lease calls back only once started, and start is handed the questions.
  let questions: TimerKeeper | null = null;
  const scheduleSoon = () => void questions!.rescheduleExpiries(new Date(clock.now() + leaseMs)).catch((err) => log.error({ err }, "[questions] could not schedule expiries"));
  const lease = createNodeLease(db, {
    name: "expiry-timers",
    nodeId: cluster.nodeId,
    leaseMs,
    clock,
    onGain: scheduleSoon,
    onLose: () => questions!.dropTimers(),
    // In rounds, the timers due soon: one whose hand-off was lost (no bus) is not forgotten.
    onRound: scheduleSoon,
  });
  return {
    timerOwner: { owns: lease.holding, handOff: (id, expiresAt) => void cluster.publish({ type: "question.expiring", to: null, id, expiresAt: expiresAt.toISOString() }) },
    async start(keeper) {
      questions = keeper;
      cluster.on((m) => m.type === "question.expiring" && keeper.expireAt(m.id, new Date(m.expiresAt)));
      await lease.start();
    },
    holding: lease.holding,
    stop: lease.stop,
  };
}
