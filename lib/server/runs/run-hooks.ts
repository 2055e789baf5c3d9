import { newOrderedId } from "../ids";
import type { RunStore } from "../store/runs/run-store";
import type { LiveRuns, RunHooks } from "./live-runs";
import type { RunDelivery } from "./run-delivery";
import type { RunStopping } from "./run-stopping";
import type { RunServiceDeps } from "./run-service-deps";

export interface RunHooksDeps {
  store: RunStore;
  live: Pick<LiveRuns, "activate">;
  delivery: Pick<RunDelivery, "deliverToParent">;
  stopping: Pick<RunStopping, "stopNow">;
  events: RunServiceDeps["events"];
  sessions: RunServiceDeps["sessions"];
  hasFunction: RunServiceDeps["hasFunction"];
}

/** What a run's supervisor asks of the other runs: starting its child runs, and what its end means for the rest. */
export function createRunHooks({ store, live, delivery, stopping, events, sessions, hasFunction }: RunHooksDeps): RunHooks {
  return {
    /** A run asked for a child run (`rt.call`): store it with the parent's journal entry (fenced by the parent's lease `epoch`), then start it. */
    async startChild(parent, message, epoch) {
      const childId = newOrderedId();
      const known = hasFunction(message.functionName);
      const child = await store.createChild({ parent, childId, seq: message.seq, digest: message.digest, functionName: message.functionName, input: message.input, known }, epoch);
      events.emit("run.updated", child);
      if (known) live.activate(childId);
      else await delivery.deliverToParent(child);
    },
    async finished(run, byStop) {
      if (run.status === "failed") {
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.id, role: "system", text: `Run ${run.functionName} failed: ${run.error}` });
      } else if (run.status === "cancelled" && byStop && !run.parentRunId) {
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.id, role: "system", text: run.error ?? "Stopped." });
      }
      // Nothing of a run outlives it: children it no longer waits for are stopped with it.
      await Promise.all((await store.activeChildIds(run.id)).map((childId) => stopping.stopNow(childId, "Its parent run ended.")));
      if (run.parentRunId) await delivery.deliverToParent(run);
    },
  };
}
