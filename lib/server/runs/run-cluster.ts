import type { RunLeases } from "../cluster/run-leases";
import type { RunStore } from "../store/runs/run-store";
import { log } from "../log";
import type { LiveRuns } from "./live-runs";
import type { RunDelivery } from "./run-delivery";
import type { RunRecovery } from "./run-recovery";
import type { RunStopping } from "./run-stopping";
import type { RunServiceDeps } from "./run-service-deps";

/** This node's part among several: what other nodes send about its runs, its leases kept, and runs of dead nodes taken over. */
export interface RunClusterDuty {
  /** Stops listening and sweeping. */
  close(): void;
}

export interface RunClusterDeps {
  store: RunStore;
  leases: RunLeases;
  live: LiveRuns;
  delivery: Pick<RunDelivery, "notifyParent">;
  stopping: Pick<RunStopping, "stopNow">;
  recovery: Pick<RunRecovery, "takeOver">;
  questions: RunServiceDeps["questions"];
  cluster: RunServiceDeps["cluster"];
}

export function startRunClusterDuty({ store, leases, live, delivery, stopping, recovery, questions, cluster }: RunClusterDeps): RunClusterDuty {
  /** What other nodes send about the runs this node executes. */
  const offCluster = cluster?.on((message) => {
    const failed = (err: unknown) => log.error({ runId: "runId" in message ? message.runId : undefined, err }, `[runs] could not handle ${message.type} from another node`);
    switch (message.type) {
      case "run.deliver": {
        const supervisor = live.get(message.runId);
        // Not live here: said to all, it is not this node's; said to this node, the run parked meanwhile, and taking it wakes it.
        if (!supervisor) return message.to === null ? undefined : live.activate(message.runId);
        if (message.question) return supervisor.deliverQuestion(message.question);
        questions.getQuestion({ id: message.questionId }).then((q) => supervisor.deliverQuestion(q), failed);
        return;
      }
      case "run.child_ended":
        store.get(message.childRunId).then((child) => delivery.notifyParent(child), failed);
        return;
      case "run.stop":
        stopping.stopNow(message.runId, message.reason).catch(failed);
        return;
      // Not about runs: the access and question services listen for these.
      case "api-token.revoked":
      case "cookies.revoked":
      case "people.changed":
      case "question.expiring":
        return;
    }
  });

  const loops: NodeJS.Timeout[] = [];
  if (leases.enabled) {
    const { leaseMs } = leases;
    const renew = () =>
      leases.renew().then(
        (lost) => lost.forEach((id) => live.get(id)?.abandon()),
        (err) => log.error({ err }, "[runs] lease renewal failed"),
      );
    const sweep = () => recovery.takeOver().catch((err) => log.error({ err }, "[runs] takeover sweep failed"));
    loops.push(setInterval(() => void renew(), Math.max(50, leaseMs / 3)));
    // Nodes sweep at slightly different rhythms; the take decides anyway.
    loops.push(setInterval(() => void sweep(), Math.max(100, leaseMs / 2 + Math.random() * (leaseMs / 4))));
    for (const loop of loops) loop.unref();
  }

  return {
    close() {
      for (const loop of loops) clearInterval(loop);
      offCluster?.();
    },
  };
}
