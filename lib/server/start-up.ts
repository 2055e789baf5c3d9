import type { RunService } from "./runs/run-service";
import type { SessionService } from "./sessions/session-service";
import type { WorkerPoolPort } from "./workers/worker-port";

/** An outbox: what it still owes is sent first, then it polls. */
interface Outbox {
  sweep(): Promise<unknown>;
  start(): void;
}

export interface StartUpParts {
  sessions: Pick<SessionService, "listDeleted" | "removeDeleted">;
  runs: Pick<RunService, "recoverAfterRestart">;
  /** Commands the CLI recorded while no server ran. */
  inbox: { applyOnce(): Promise<number>; start(): void };
  pool: Pick<WorkerPoolPort, "warm">;
  outboxes: Outbox[];
}

export type Recovered = Awaited<ReturnType<RunService["recoverAfterRestart"]>> & { inbox: number };

/** At start-up, in this order: what a stopped server left half done is finished, runs recover, then the loops start. */
export async function recoverAndStart({ sessions, runs, inbox, pool, outboxes }: StartUpParts): Promise<Recovered> {
  // A delete the server stopped in the middle of is finished first: nothing of it is resumed.
  for (const id of await sessions.listDeleted()) await sessions.removeDeleted({ id });
  const recovered = await runs.recoverAfterRestart();
  const applied = await inbox.applyOnce();
  pool.warm();
  inbox.start();
  for (const outbox of outboxes) {
    await outbox.sweep();
    outbox.start();
  }
  return { ...recovered, inbox: applied };
}
