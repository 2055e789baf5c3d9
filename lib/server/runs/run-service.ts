import { randomUUID } from "node:crypto";
import { AppError, describeZodError } from "../../protocol/errors";
import { stoppedBy } from "../../protocol/audit";
import { ACTIVE_RUN_STATUSES, type Run, type RunDetail, type StartedRun } from "../../protocol/entities";
import { buildReceipt, buildStopReceipt, commandPayload, type StartRunReceipt, type StopOutcome, type StopReceipt, type StoppedRun } from "../../protocol/commands";
import { RunPolicySchema, type RunPolicyInput } from "../../protocol/policy";
import type { Question } from "../../protocol/question";
import type { Clock } from "../clock";
import type { CommandService } from "../commands/command-service";
import type { Db, Tx } from "../db/client";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import type { QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import type { WorkerPoolPort } from "../workers/worker-port";
import { startChildRun, notifyParent } from "./child-runs";
import { loadRunDetail } from "./run-detail";
import { recoverRuns } from "./run-recovery";
import { createRunStore } from "./run-store";
import { RunSupervisor, type RunEnd, type SupervisorContext } from "./run-supervisor";

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
  metrics?: Pick<Metrics, "runParked" | "time">;
}

/**
 * Durable runs of agent functions. A run is a database record with a journal; a worker process is
 * lent to it only while it has work to do. Each live run has one supervisor (its state machine);
 * this service starts them, routes answers, child results and stops to them, and parks waiting
 * runs when other runs need their workers.
 */
export function createRunService(deps: RunServiceDeps) {
  const { db, events, sessions, questions, commands, pool, clock, hasFunction } = deps;
  const store = createRunStore(db);
  const live = new Map<string, RunSupervisor>();
  let closed = false;

  const ctx: SupervisorContext = {
    store,
    questions,
    sessions,
    events,
    pool,
    clock,
    hasFunction,
    stopGraceMs: deps.stopGraceMs ?? 3_000,
    parkAfterMs: deps.parkAfterMs ?? 3_000,
    maxWorkerLosses: deps.maxWorkerLosses ?? 3,
    workersWanted: () => pool.queued > 0,
    startChild: (parent, message) => startChildRun({ store, events, hasFunction, activate, deliverToParent }, parent, message),
    left(supervisor) {
      if (live.get(supervisor.runId) === supervisor) live.delete(supervisor.runId);
    },
    async finished(run, byStop) {
      if (run.status === "failed") {
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.id, role: "system", text: `Run ${run.functionName} failed: ${run.error}` });
      } else if (run.status === "cancelled" && byStop && !run.parentRunId) {
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.id, role: "system", text: run.error ?? "Stopped." });
      }
      // Nothing of a run outlives it: children it no longer waits for are stopped with it.
      await Promise.all((await store.activeChildIds(run.id)).map((childId) => stopNow(childId, "Its parent run ended.")));
      if (run.parentRunId) await deliverToParent(run);
    },
    activate: (runId) => activate(runId),
    metrics: deps.metrics ?? { time: () => () => {} },
  };

  async function deliverToParent(child: Run) {
    await notifyParent({ store, activate, supervisorOf: (id) => live.get(id) }, child);
  }

  /** Starts a run in a worker, or resumes a parked one there by replaying its journal. A no-op for a live run. `fresh`: the run just stored, not read again. */
  function activate(runId: string, fresh?: Run): void {
    if (closed || live.has(runId)) return;
    const supervisor = new RunSupervisor(runId, ctx, fresh);
    live.set(runId, supervisor);
    void supervisor.ended.then((end) => end.how === "parked" && deps.metrics?.runParked());
    supervisor.begin();
  }

  /** Runs queue for a worker: the run that has waited longest lets go of its worker. */
  function parkOldestWaiting() {
    let oldest: RunSupervisor | undefined;
    for (const s of live.values()) {
      if (s.state === "waiting" && (!oldest || s.waitingSince < oldest.waitingSince)) oldest = s;
    }
    oldest?.parkNow();
  }
  pool.on("pressure", parkOldestWaiting);

  // An answer that leaves its run nothing else to wait on moves it to running in the answer's own transaction.
  const now = store.now;
  if (now) {
    questions.alsoOnClaimNow((question) => {
      const run = now.resumeIfUnblockedNow(question.runId);
      return run && (() => events.emit("run.updated", run));
    });
  }

  /** The answer queue: the settle path hands each settled question to its run. */
  function deliverQuestion(question: Question): void {
    const supervisor = live.get(question.runId);
    if (supervisor) supervisor.deliverQuestion(question);
    else if (question.status !== "cancelled" && question.status !== "expired") activate(question.runId);
  }

  /**
   * Stops a run; resolves once it and its child runs have ended. The run is told first, so a child's
   * end cannot reach it as a failed call before it knows it is stopping; its children follow it.
   */
  async function stopNow(id: string, reason = "The run was stopped."): Promise<{ run: Run; outcome: Exclude<StopOutcome, "queued"> }> {
    const current = await store.get(id);
    if (!ACTIVE_RUN_STATUSES.includes(current.status)) return { run: current, outcome: "already_ended" };
    let end: RunEnd;
    do {
      let supervisor = live.get(id);
      if (!supervisor) {
        // A parked run: a supervisor without a worker decides its end, so no activation races it.
        supervisor = new RunSupervisor(id, ctx);
        live.set(id, supervisor);
      }
      end = await supervisor.stop(reason);
    } while (end.how === "parked" && !closed);
    const run = await store.get(id);
    return { run, outcome: end.how === "finished" && end.byStop ? "stopped" : "finished_first" };
  }

  async function startRun({
    sessionId,
    functionName,
    input = null,
    canAsk = true,
    policy = {},
    commandId,
    turnOf,
    alongWith,
    alongWithNow,
    committed,
  }: {
    sessionId: string;
    functionName: string;
    input?: unknown;
    canAsk?: boolean;
    policy?: RunPolicyInput;
    commandId?: string;
    /** A chat turn of this session: refused with session_busy while another turn is active. */
    turnOf?: string;
    /** Writes what belongs to the same command (a chat message) in the run's transaction; it gets the new run's id. */
    alongWith?: (tx: Tx, runId: string) => Promise<unknown>;
    /** `alongWith` on SQLite's direct lane (synchronous); the run is stored there when this is given (or no `alongWith`). */
    alongWithNow?: (runId: string) => void;
    /** Announces what `alongWith` wrote, once it has committed and before the run is announced. */
    committed?: () => void;
  }): Promise<StartedRun> {
    if (!hasFunction(functionName)) throw new AppError("not_found:function", `No agent function named "${functionName}".`);
    const fixedPolicy = RunPolicySchema.safeParse(policy);
    if (!fixedPolicy.success) throw new AppError("invalid_policy", `Invalid policy: ${describeZodError(fixedPolicy.error)}`);
    const ownerId = await sessions.ownerOf({ id: sessionId });
    try {
      JSON.stringify(input ?? null);
    } catch {
      throw new AppError("bad_request", "The run input must be plain JSON.");
    }
    let started: Run | undefined;
    const receipt = await commands.run<StartRunReceipt>(
      { commandId, kind: "start_run", payload: { sessionId, functionName, input: input ?? null, canAsk, policy: fixedPolicy.data } },
      async ({ commandId: cid, record, recordNow }) => {
        const created = deps.metrics?.time("run.create");
        const id = randomUUID();
        const r = buildReceipt<StartRunReceipt>({ commandId: cid, kind: "start_run", apply_state: "applied", runId: id });
        const now = recordNow && (alongWith === undefined || alongWithNow !== undefined) ? recordNow : null;
        started = await store.create(
          { id, sessionId, ownerId, functionName, input, policy: fixedPolicy.data, canAsk, turnOf },
          async (tx) => {
            await alongWith?.(tx, id);
            await record(tx, r);
          },
          now
            ? () => {
                alongWithNow?.(id);
                now(r);
              }
            : undefined,
        );
        committed?.();
        events.emit("run.updated", started);
        created?.();
        activate(id, started);
        return r;
      },
    );
    // A repeated command answers with its first run as it is now.
    return { ...(started ?? (await store.get(receipt.runId))), receipt };
  }

  return {
    store,
    startRun,
    activate,
    deliverQuestion,
    getRun: ({ id }: { id: string }) => store.get(id),
    listRuns: ({ sessionId }: { sessionId: string }) => store.listBySession(sessionId),
    getRunDetail: ({ id }: { id: string }): Promise<RunDetail> => loadRunDetail(db, questions, id),

    /** Stops a run (idempotent by commandId); the receipt says whether the stop or the run's own end came first. */
    async stopRun({ id, commandId, by = "rest" }: { id: string; commandId?: string; by?: Parameters<typeof stoppedBy>[0] }): Promise<StoppedRun> {
      await store.get(id);
      const receipt = await commands.run<StopReceipt>({ commandId, kind: "stop_run", payload: commandPayload("stop_run", { runId: id }) }, async ({ commandId: cid, commit }) => {
        const { outcome } = await stopNow(id, stoppedBy(by));
        const r = buildStopReceipt({ commandId: cid, runId: id, outcome });
        await commit(r);
        return r;
      });
      return { ...(await store.get(id)), receipt };
    },

    /**
     * Stops every active run of a session (its delete) and resolves once all have ended; their
     * questions are cancelled on the way (retracted in every tab). Runs a child start slips in
     * meanwhile are stopped by the next round; the session's mark keeps new ones out.
     */
    async stopSessionRuns({ sessionId, reason }: { sessionId: string; reason: string }): Promise<void> {
      for (let round = 0; round < 10; round++) {
        const active = await store.listActiveInSession(sessionId);
        if (active.length === 0) return;
        const ids = new Set(active.map((r) => r.id));
        // The roots of what is active: stopping a run stops its children after it.
        const roots = active.filter((r) => !r.parentRunId || !ids.has(r.parentRunId));
        await Promise.all(roots.map((r) => stopNow(r.id, reason)));
      }
    },

    /** At start-up: runs that were working resume by replay; waiting runs stay parked. */
    recoverAfterRestart: () => recoverRuns({ store, questions, activate }),

    /** Live runs by state (health checks and tests). */
    liveCount: () => live.size,
    liveStates: () => Object.fromEntries([...live.values()].map((s) => [s.runId, s.state])),

    /** Lets go of every live run without ending it: the next start-up resumes them from their journals. */
    detachAll(): void {
      closed = true;
      pool.off("pressure", parkOldestWaiting);
      for (const supervisor of live.values()) supervisor.detach();
      live.clear();
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
