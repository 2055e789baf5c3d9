import { randomUUID } from "node:crypto";
import { AppError } from "../../protocol/errors";
import { ACTIVE_RUN_STATUSES, type Run, type RunDetail, type RunStatus, type StartedRun } from "../../protocol/entities";
import type { ChildToParent, RunFinishedMessage } from "../../protocol/ipc";
import { RunPolicySchema, type RunPolicyInput } from "../../protocol/policy";
import type { JsonValue, Question, Receipt } from "../../protocol/question";
import type { CommandService } from "../commands/command-service";
import type { Db, Tx } from "../db/client";
import { toRun } from "../db/mappers";
import type { DomainEvents } from "../events";
import type { QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import type { AgentWorker, WorkerExit, WorkerPool } from "../workers/worker-pool";
import { loadJournal } from "./journal";
import { loadRunDetail } from "./run-detail";

// Prisma filters take a mutable list.
const ACTIVE: RunStatus[] = [...ACTIVE_RUN_STATUSES];
type FinalStatus = "succeeded" | "failed" | "cancelled";

/** A run loaded in a worker. Runs that only wait are parked: they have no LiveRun at all. */
interface LiveRun {
  runId: string;
  sessionId: string;
  functionName: string;
  policy: Run["policy"];
  worker: AgentWorker;
  /** Worker messages and settlements of one run are handled strictly in order. */
  chain: Promise<void>;
  stopping: boolean;
  /** Set when the server ends the run as failed (its time limit), rather than a person stopping it. */
  failReason: string | null;
  parking: boolean;
  graceTimer?: NodeJS.Timeout;
  parkTimer?: NodeJS.Timeout;
  /** When the current stretch of execution began; null while the run waits for a person. */
  activeSince: number | null;
  /** Execution time before the current stretch (all attempts). */
  activeBase: number;
  budgetTimer?: NodeJS.Timeout;
  ended: Promise<void>;
  markEnded: () => void;
  onMessage: (msg: ChildToParent) => void;
  onExit: (exit: WorkerExit) => void;
}

export interface RunServiceDeps {
  db: Db;
  events: DomainEvents;
  sessions: SessionService;
  questions: QuestionService;
  commands: CommandService;
  pool: WorkerPool;
  /** Names of the agent functions a run may start. */
  hasFunction: (name: string) => boolean;
  /** How long a stopped worker may take to finish before it is killed. */
  stopGraceMs?: number;
  /** How long a run may wait in its worker before it is parked (its worker released). */
  parkAfterMs?: number;
}

/**
 * Durable runs of agent functions. A run is a database record with a journal; a worker process
 * is lent to it only while it has work to do. Waiting runs are parked, and resumed by replaying
 * their journal when an answer (or a child run's result) arrives, also after a server restart.
 */
export function createRunService(deps: RunServiceDeps) {
  const { db, events, sessions, questions, commands, pool, hasFunction, stopGraceMs = 3_000, parkAfterMs = 3_000 } = deps;
  const live = new Map<string, LiveRun>();
  /** Runs waiting for a worker to (re)start them. */
  const activating = new Map<string, { cancelled: boolean }>();
  let closed = false;

  function enqueue(run: LiveRun, work: () => Promise<void>) {
    run.chain = run.chain.then(work).catch((err) => console.error(`[runs] ${run.runId}:`, err));
  }

  async function getRun({ id }: { id: string }): Promise<Run> {
    const row = await db.run.findUnique({ where: { id } });
    if (!row) throw new AppError("not_found:run", `No run with id "${id}".`);
    return toRun(row);
  }

  async function publishRun(id: string) {
    events.emit("run.updated", await getRun({ id }));
  }

  /** Starts counting execution time against the run's policy. */
  function startClock(run: LiveRun) {
    if (run.activeSince !== null) return;
    run.activeSince = Date.now();
    const left = run.policy.maxActiveMs - run.activeBase;
    run.budgetTimer = setTimeout(() => enqueue(run, () => exceedBudget(run)), Math.max(0, left));
    run.budgetTimer.unref();
  }

  /** Adds the time since the run last started working to its active time. */
  async function pauseClock(run: LiveRun) {
    if (run.activeSince === null) return;
    clearTimeout(run.budgetTimer);
    const elapsed = Date.now() - run.activeSince;
    run.activeSince = null;
    run.activeBase += elapsed;
    await db.run.update({ where: { id: run.runId }, data: { activeMs: { increment: elapsed } } });
  }

  async function exceedBudget(run: LiveRun) {
    if (run.stopping || !live.has(run.runId)) return;
    const seconds = Math.round(run.policy.maxActiveMs / 100) / 10;
    run.failReason = `It ran for more than its execution time limit of ${seconds} s (time waiting for a person is not counted).`;
    await interrupt(run, run.failReason);
  }

  /** Ends a live run from outside: its questions are cancelled, its worker told, then killed after the grace period. */
  async function interrupt(run: LiveRun, reason: string) {
    if (run.stopping) return;
    run.stopping = true;
    clearTimeout(run.parkTimer);
    clearTimeout(run.budgetTimer);
    await questions.closeForRun({ runId: run.runId, status: "cancelled", by: "stop", feedback: reason });
    run.worker.send({ type: "run.cancel", runId: run.runId, reason });
    run.graceTimer = setTimeout(() => run.worker.kill("SIGKILL"), stopGraceMs);
  }

  /** Moves a run between running and waiting_input to match its pending questions. */
  async function syncWaiting(runId: string) {
    const waiting = (await questions.countPending({ runId })) > 0;
    const run = live.get(runId);
    if (run) {
      if (waiting) await pauseClock(run);
      else startClock(run);
    }
    const { count } = await db.run.updateMany({
      where: { id: runId, status: waiting ? "running" : "waiting_input" },
      data: { status: waiting ? "waiting_input" : "running" },
    });
    if (count) await publishRun(runId);
  }

  /** Whether a run can only wait: a pending question of its own, or a child run still active. */
  async function isBlocked(runId: string): Promise<boolean> {
    if ((await questions.countPending({ runId })) > 0) return true;
    const openCalls = await db.journalEntry.findMany({ where: { runId, kind: "call" }, select: { childRunId: true } });
    if (openCalls.length === 0) return false;
    const active = await db.run.count({ where: { id: { in: openCalls.map((c) => c.childRunId!) }, status: { in: ACTIVE } } });
    return active > 0;
  }

  function schedulePark(run: LiveRun) {
    clearTimeout(run.parkTimer);
    if (run.stopping || closed) return;
    run.parkTimer = setTimeout(() => {
      enqueue(run, async () => {
        if (run.stopping || run.parking || !live.has(run.runId)) return;
        if (!(await isBlocked(run.runId))) return;
        run.parking = true;
        if (!run.worker.send({ type: "run.park", runId: run.runId })) run.parking = false;
      });
    }, parkAfterMs);
    run.parkTimer.unref();
  }

  /** Ends a run once; later calls are no-ops. Pending questions end with it; its parent hears of it. */
  async function finishRun(
    runId: string,
    outcome: { status: FinalStatus; result?: unknown; error?: string | null; questionStatus?: "cancelled" | "expired"; by?: "run_end" | "stop" | "worker_exit" | "restart" },
  ) {
    await questions.closeForRun({ runId, status: outcome.questionStatus ?? "cancelled", by: outcome.by ?? "run_end", feedback: outcome.error ?? null });
    const { count } = await db.run.updateMany({
      where: { id: runId, status: { in: ACTIVE } },
      data: {
        status: outcome.status,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        error: outcome.error ?? null,
        progress: null,
        finishedAt: new Date(),
      },
    });
    if (count === 0) return;
    const run = await getRun({ id: runId });
    events.emit("run.updated", run);
    if (outcome.status === "failed") {
      await sessions.addMessage({ sessionId: run.sessionId, runId, role: "system", text: `Run ${run.functionName} failed: ${outcome.error}` });
    } else if (outcome.status === "cancelled" && outcome.by === "stop" && !run.parentRunId) {
      await sessions.addMessage({ sessionId: run.sessionId, runId, role: "system", text: `Run ${run.functionName} stopped.` });
    }
    if (run.parentRunId) await notifyParent(run);
  }

  /** A child run ended: its waiting `call` gets the result, resuming the parent if it was parked. */
  async function notifyParent(child: Run) {
    const parentId = child.parentRunId!;
    const parent = live.get(parentId);
    if (parent) {
      enqueue(parent, async () => {
        parent.worker.send({
          type: "call.settled",
          runId: parentId,
          seq: (await db.run.findUniqueOrThrow({ where: { id: child.id }, select: { parentSeq: true } })).parentSeq!,
          childRunId: child.id,
          status: child.status as FinalStatus,
          result: (child.result ?? null) as JsonValue,
          error: child.error,
        });
        schedulePark(parent);
      });
    } else {
      void activate(parentId);
    }
  }

  function detach(run: LiveRun) {
    clearTimeout(run.graceTimer);
    clearTimeout(run.parkTimer);
    clearTimeout(run.budgetTimer);
    live.delete(run.runId);
    run.worker.off("message", run.onMessage);
    run.worker.off("exit", run.onExit);
    run.markEnded();
  }

  async function endLive(run: LiveRun) {
    await pauseClock(run).catch(() => {});
    detach(run);
    pool.release(run.worker);
  }

  async function refuseQuestion(run: LiveRun, questionId: string, err: unknown) {
    const error = AppError.from(err);
    if (error.code === "internal") console.error(`[runs] could not store a question of ${run.runId}`, err);
    run.worker.send({ type: "question.refused", runId: run.runId, questionId, error: error.toWire() });
  }

  async function handleWorkerMessage(run: LiveRun, msg: ChildToParent) {
    if (msg.type !== "run.parked") schedulePark(run);
    switch (msg.type) {
      case "question.ask": {
        if (run.stopping) {
          run.worker.send({ type: "question.settled", runId: run.runId, questionId: msg.questionId, outcome: "cancelled", value: null, feedback: "The run is stopping." });
          return;
        }
        try {
          await questions.create({
            id: msg.questionId,
            run: { id: run.runId, sessionId: run.sessionId, functionName: run.functionName, policy: run.policy },
            seq: msg.seq,
            digest: msg.digest,
            spec: msg.spec,
          });
        } catch (err) {
          await refuseQuestion(run, msg.questionId, err);
          return;
        }
        await syncWaiting(run.runId);
        return;
      }
      case "run.say": {
        await sessions.addMessage({
          sessionId: run.sessionId,
          runId: run.runId,
          role: "agent",
          text: msg.text,
          alongWith: (tx) => tx.journalEntry.create({ data: { runId: run.runId, seq: msg.seq, kind: "say", name: msg.text.slice(0, 200), digest: msg.digest } }),
        });
        return;
      }
      case "step.record":
        await db.journalEntry.create({ data: { runId: run.runId, seq: msg.seq, kind: "step", name: msg.name, digest: msg.digest, output: JSON.stringify(msg.output) } });
        return;
      case "run.call": {
        await startChild(run, msg);
        return;
      }
      case "run.progress":
        await db.run.updateMany({ where: { id: run.runId, status: { in: ACTIVE } }, data: { progress: msg.text } });
        await publishRun(run.runId);
        return;
      case "run.parked":
        run.parking = false;
        if (!msg.parked) return schedulePark(run);
        await db.run.updateMany({ where: { id: run.runId, status: { in: ACTIVE } }, data: { progress: null } });
        await endLive(run);
        // An answer may have landed while the worker was letting go.
        if (!(await isBlocked(run.runId))) void activate(run.runId);
        return;
      case "run.finished":
        await finishFromWorker(run, msg);
        return;
    }
  }

  async function startChild(parent: LiveRun, msg: Extract<ChildToParent, { type: "run.call" }>) {
    const parentRow = await db.run.findUniqueOrThrow({ where: { id: parent.runId } });
    const childId = randomUUID();
    const known = hasFunction(msg.functionName);
    await db.$transaction(async (tx: Tx) => {
      await tx.run.create({
        data: {
          id: childId,
          sessionId: parent.sessionId,
          functionName: msg.functionName,
          input: JSON.stringify(msg.input),
          status: known ? "running" : "failed",
          error: known ? null : `No agent function named "${msg.functionName}".`,
          finishedAt: known ? null : new Date(),
          policy: parentRow.policy,
          canAsk: parentRow.canAsk,
          parentRunId: parent.runId,
          parentSeq: msg.seq,
          rootRunId: parentRow.rootRunId ?? parentRow.id,
        },
      });
      await tx.journalEntry.create({ data: { runId: parent.runId, seq: msg.seq, kind: "call", name: msg.functionName, digest: msg.digest, childRunId: childId } });
    });
    const child = await getRun({ id: childId });
    events.emit("run.updated", child);
    if (known) void activate(childId);
    else await notifyParent(child);
  }

  async function finishFromWorker(run: LiveRun, msg: RunFinishedMessage) {
    if (run.failReason) {
      await finishRun(run.runId, { status: "failed", error: run.failReason, by: "run_end" });
    } else {
      const status = run.stopping ? "cancelled" : msg.status;
      await finishRun(run.runId, {
        status,
        result: msg.result,
        error: status === "succeeded" ? null : (msg.error?.message ?? (status === "cancelled" ? "Stopped." : "Unknown error")),
        by: run.stopping ? "stop" : "run_end",
      });
    }
    await endLive(run);
  }

  async function handleWorkerExit(run: LiveRun, exit: WorkerExit) {
    if (closed) return;
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    detach(run);
    if (run.failReason) {
      await finishRun(run.runId, { status: "failed", error: `${run.failReason} The worker did not end in time and was killed (${how}).`, by: "run_end" });
    } else if (run.stopping) {
      await finishRun(run.runId, { status: "cancelled", error: `Stopped; the worker did not end in time and was killed (${how}).`, by: "stop" });
    } else {
      await finishRun(run.runId, { status: "failed", error: `The worker process ended unexpectedly (${how}).`, questionStatus: "expired", by: "worker_exit" });
    }
  }

  /**
   * Starts a run in a worker, or resumes a parked one there by replaying its journal.
   * A no-op for a run that is already live, already waiting for a worker, or has ended.
   */
  function activate(runId: string): Promise<void> {
    // Called fire-and-forget from events: it must never reject.
    return activateRun(runId).catch((err) => console.error(`[runs] could not activate ${runId}`, err));
  }

  async function activateRun(runId: string): Promise<void> {
    if (closed || live.has(runId) || activating.has(runId)) return;
    const ticket = { cancelled: false };
    activating.set(runId, ticket);
    let worker: AgentWorker | undefined;
    try {
      worker = await pool.acquire();
      const row = await db.run.findUnique({ where: { id: runId } });
      if (!row || !ACTIVE.includes(row.status as RunStatus) || ticket.cancelled || closed) {
        pool.release(worker);
        return;
      }
      if (!hasFunction(row.functionName)) {
        pool.release(worker);
        await finishRun(runId, { status: "failed", error: `It cannot be resumed: no agent function named "${row.functionName}" exists any more.`, questionStatus: "expired", by: "restart" });
        return;
      }
      const journal = await loadJournal(db, runId);
      await db.run.update({ where: { id: runId }, data: { attempts: { increment: 1 }, progress: null } });
      startLive(toRun(row), worker, journal);
    } catch (err) {
      if (worker) pool.release(worker);
      if (closed) return;
      console.error(`[runs] could not start ${runId} in a worker`, err);
      await finishRun(runId, { status: "failed", error: "No worker process could be started." });
    } finally {
      activating.delete(runId);
    }
  }

  function startLive(run: Run, worker: AgentWorker, journal: Awaited<ReturnType<typeof loadJournal>>) {
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => (markEnded = resolve));
    const entry: LiveRun = {
      runId: run.id,
      sessionId: run.sessionId,
      functionName: run.functionName,
      policy: run.policy,
      worker,
      chain: Promise.resolve(),
      stopping: false,
      failReason: null,
      parking: false,
      activeSince: null,
      activeBase: run.activeMs,
      ended,
      markEnded,
      onMessage: (msg) => {
        if ("runId" in msg && msg.runId !== run.id) return;
        enqueue(entry, () => handleWorkerMessage(entry, msg));
      },
      onExit: (exit) => enqueue(entry, () => handleWorkerExit(entry, exit)),
    };
    live.set(run.id, entry);
    startClock(entry);
    worker.on("message", entry.onMessage);
    worker.on("exit", entry.onExit);
    const sent = worker.send({ type: "run.start", runId: run.id, sessionId: run.sessionId, functionName: run.functionName, input: run.input ?? null, canAsk: run.canAsk, journal });
    if (!sent) enqueue(entry, () => handleWorkerExit(entry, worker.exitInfo ?? { code: null, signal: null }));
    else enqueue(entry, () => catchUp(entry, journal));
    schedulePark(entry);
  }

  /**
   * What settled between reading the journal and the run going live would otherwise be missed:
   * send it now (the runtime keeps a settlement that arrives before its `ask` or `call`).
   */
  async function catchUp(run: LiveRun, journal: Awaited<ReturnType<typeof loadJournal>>) {
    const open = journal.filter((r) => (r.kind === "question" || r.kind === "call") && r.settlement === null);
    if (open.length > 0) {
      for (const now of await loadJournal(db, run.runId)) {
        if (!open.some((r) => r.seq === now.seq)) continue;
        if (now.kind === "question" && now.settlement) {
          run.worker.send({ type: "question.settled", runId: run.runId, questionId: now.questionId, ...now.settlement });
        } else if (now.kind === "call" && now.settlement) {
          run.worker.send({ type: "call.settled", runId: run.runId, seq: now.seq, childRunId: now.childRunId, ...now.settlement });
        }
      }
    }
    await syncWaiting(run.runId);
  }

  // The answer queue: a settled question goes to its live run, or resumes its parked run.
  events.on("question.closed", (question: Question) => {
    const run = live.get(question.runId);
    if (!run) {
      if (question.status !== "cancelled" && question.status !== "expired") void activate(question.runId);
      return;
    }
    enqueue(run, async () => {
      run.worker.send({
        type: "question.settled",
        runId: run.runId,
        questionId: question.id,
        outcome: question.status === "pending" ? "cancelled" : question.status,
        value: question.answer,
        feedback: question.feedback,
      });
      await syncWaiting(run.runId);
      schedulePark(run);
    });
  });

  async function startRun({
    sessionId,
    functionName,
    input = null,
    canAsk = true,
    policy = {},
    commandId,
  }: {
    sessionId: string;
    functionName: string;
    input?: unknown;
    canAsk?: boolean;
    policy?: RunPolicyInput;
    commandId?: string;
  }): Promise<StartedRun> {
    if (!hasFunction(functionName)) throw new AppError("not_found:function", `No agent function named "${functionName}".`);
    const fixedPolicy = RunPolicySchema.safeParse(policy);
    if (!fixedPolicy.success) throw new AppError("invalid_policy", `Invalid policy: ${fixedPolicy.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    await sessions.getSession({ id: sessionId });
    let serializedInput: string;
    try {
      serializedInput = JSON.stringify(input ?? null);
    } catch {
      throw new AppError("bad_request", "The run input must be plain JSON.");
    }
    const receipt = await commands.run<Receipt & { runId: string }>(
      { commandId, kind: "start_run", payload: { sessionId, functionName, input: input ?? null, canAsk, policy: fixedPolicy.data } },
      async ({ commandId: cid, record }) => {
        const id = randomUUID();
        const r = { commandId: cid, kind: "start_run" as const, record_state: "durably_recorded" as const, apply_state: "applied" as const, runId: id };
        await db.$transaction(async (tx: Tx) => {
          await tx.run.create({
            data: { id, sessionId, functionName, input: serializedInput, status: "running", policy: JSON.stringify(fixedPolicy.data), canAsk, rootRunId: id },
          });
          await record(tx, r);
        });
        events.emit("run.updated", await getRun({ id }));
        void activate(id);
        return r;
      },
    );
    return { ...(await getRun({ id: receipt.runId })), receipt };
  }

  async function stopRun({ id }: { id: string }): Promise<Run> {
    const current = await getRun({ id });
    if (!ACTIVE.includes(current.status)) return current;
    const children = await db.run.findMany({ where: { parentRunId: id, status: { in: ACTIVE } }, select: { id: true } });
    await Promise.all(children.map((c) => stopRun({ id: c.id })));
    const run = live.get(id);
    if (!run) {
      const ticket = activating.get(id);
      if (ticket) ticket.cancelled = true;
      await finishRun(id, { status: "cancelled", error: "The run was stopped.", by: "stop" });
      return getRun({ id });
    }
    await interrupt(run, "The run was stopped.");
    await run.ended;
    return getRun({ id });
  }

  return {
    getRun,
    startRun,
    stopRun,
    activate,

    getRunDetail: ({ id }: { id: string }): Promise<RunDetail> => loadRunDetail(db, questions, id),

    async listRuns({ sessionId }: { sessionId: string }): Promise<Run[]> {
      const rows = await db.run.findMany({ where: { sessionId }, orderBy: { createdAt: "asc" } });
      return rows.map(toRun);
    },

    /** The question a session waits on, if any: a new turn must not start behind it. */
    async waitingQuestionOf({ sessionId }: { sessionId: string }): Promise<Question | null> {
      const [first] = await questions.listPending({ sessionId });
      return first ?? null;
    },

    /**
     * At start-up: pending questions stay pending (their expiry timers are rebuilt). Runs that were
     * executing when the previous process died are resumed by replay; waiting runs stay parked
     * unless what they waited for has already arrived.
     */
    async recoverAfterRestart(): Promise<{ resumed: number; parked: number; questions: number }> {
      await questions.rescheduleExpiries();
      const active = await db.run.findMany({ where: { status: { in: ACTIVE } }, orderBy: { createdAt: "asc" } });
      let resumed = 0;
      for (const row of active) {
        if (row.status === "running" || !(await isBlocked(row.id))) {
          resumed++;
          void activate(row.id);
        }
      }
      const pending = await db.question.count({ where: { status: "pending" } });
      return { resumed, parked: active.length - resumed, questions: pending };
    },

    /** Active runs loaded in a worker (health checks and tests). */
    liveCount: () => live.size,

    /** Lets go of every live run without ending it: the next start-up resumes them from their journals. */
    detachAll(): void {
      closed = true;
      for (const run of live.values()) detach(run);
      live.clear();
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
