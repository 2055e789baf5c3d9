import type { Run, RunDetail } from "../../protocol/entities";
import type { RunStore } from "../store/runs/run-store";
import type { LiveRuns } from "./live-runs";
import { loadRunDetail } from "./run-detail";
import type { RunStateKind } from "./run-lifecycle";
import type { RunServiceDeps } from "./run-service-deps";

/** Runs as stored, and the live ones by state (health checks and tests). */
export interface RunReading {
  getRun(request: { id: string }): Promise<Run>;
  listRuns(request: { sessionId: string }): Promise<Run[]>;
  getRunDetail(request: { id: string }): Promise<RunDetail>;
  liveCount(): number;
  liveStates(): Record<string, RunStateKind>;
}

export interface RunReadingDeps {
  db: RunServiceDeps["db"];
  questions: RunServiceDeps["questions"];
  store: RunStore;
  live: Pick<LiveRuns, "size" | "values">;
}

export function createRunReading({ db, questions, store, live }: RunReadingDeps): RunReading {
  return {
    getRun: ({ id }) => store.get(id),
    listRuns: ({ sessionId }) => store.listBySession(sessionId),
    getRunDetail: ({ id }) => loadRunDetail(db, questions, id),
    liveCount: () => live.size,
    liveStates: () => Object.fromEntries([...live.values()].map((s) => [s.runId, s.state])),
  };
}
