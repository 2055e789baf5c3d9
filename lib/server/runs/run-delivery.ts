import type { Run } from "../../protocol/entities";
import type { Question } from "../../protocol/question";
import type { RunLeases } from "../cluster/run-leases";
import type { RunStore } from "../store/runs/run-store";
import type { ForOwner, LiveRuns } from "./live-runs";
import type { RunServiceDeps } from "./run-service-deps";

/** Hands what a run waits for (settled questions, ended child runs) to its supervisor, waking it if it is parked. */
export interface RunDelivery {
  /** The answer queue: the settle path hands each settled question to its run. */
  deliverQuestion(question: Question): void;
  /** A child run ended: the `call` waiting for it gets the result, resuming the parent if it was parked (`tell`: as for activate). */
  notifyParent(child: Run, tell?: ForOwner): Promise<void>;
  /** As notifyParent, telling the node that executes the parent when that is another node. */
  deliverToParent(child: Run): Promise<void>;
}

export interface RunDeliveryDeps {
  store: RunStore;
  leases: RunLeases;
  live: LiveRuns;
  cluster: RunServiceDeps["cluster"];
}

export function createRunDelivery({ store, leases, live, cluster }: RunDeliveryDeps): RunDelivery {
  async function notifyParent(child: Run, tell?: ForOwner): Promise<void> {
    const parentId = child.parentRunId!;
    const supervisor = live.get(parentId);
    if (!supervisor) return live.activate(parentId, undefined, tell);
    const seq = await store.parentSeqOf(child.id);
    if (seq !== null) supervisor.deliverCall(child, seq);
  }

  return {
    notifyParent,
    deliverToParent: (child) => notifyParent(child, (to) => ({ type: "run.child_ended", to, runId: child.parentRunId!, childRunId: child.id })),
    deliverQuestion(question) {
      const supervisor = live.get(question.runId);
      if (supervisor) supervisor.deliverQuestion(question);
      else if (question.status !== "cancelled" && question.status !== "expired") {
        const deliver = { type: "run.deliver", runId: question.runId, questionId: question.id, question } as const;
        // Another node may execute it: told at once. If it is parked, the lease lets this node (or the one it raced) wake it.
        if (leases.enabled) cluster?.publish({ ...deliver, to: null });
        live.activate(question.runId, undefined, (to) => ({ ...deliver, to }));
      }
    },
  };
}
