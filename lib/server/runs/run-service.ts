import { randomUUID } from "node:crypto";
import { AppError } from "../../protocol/errors";
import type { Run, RunStatus } from "../../protocol/entities";
import type { ChildToParent, RunFinishedMessage } from "../../protocol/ipc";
import type { Question } from "../../protocol/question";
import type { Db } from "../db/client";
import { toRun } from "../db/mappers";
import type { DomainEvents } from "../events";
import type { QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import type { AgentWorker, WorkerExit, WorkerPool } from "../workers/worker-pool";

const ACTIVE: RunStatus[] = ["running", "waiting_input"];

interface LiveRun {
  runId: string;
  sessionId: string;
  functionName: string;
  worker: AgentWorker;
  /** Worker messages and question settlements of one run are handled strictly in order. */
  chain: Promise<void>;
  stopping: boolean;
  graceTimer?: NodeJS.Timeout;
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
  pool: WorkerPool;
  /** Names of the agent functions a run may start. */
  hasFunction: (name: string) => boolean;
  /** How long a stopped worker may take to finish before it is killed. */
  stopGraceMs?: number;
}

/** Runs of agent functions in worker processes, bridged to questions and messages. */
export function createRunService({ db, events, sessions, questions, pool, hasFunction, stopGraceMs = 3_000 }: RunServiceDeps) {
  const live = new Map<string, LiveRun>();

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

  /** Moves a run between running and waiting_input to match its pending questions. */
  async function syncWaiting(runId: string) {
    const waiting = (await questions.countPending({ runId })) > 0;
    const { count } = await db.run.updateMany({
      where: { id: runId, status: waiting ? "running" : "waiting_input" },
      data: { status: waiting ? "waiting_input" : "running" },
    });
    if (count) await publishRun(runId);
  }

  /** Ends a run once; later calls are no-ops. Pending questions end with it. */
  async function finishRun(
    runId: string,
    outcome: { status: "succeeded" | "failed" | "cancelled"; result?: unknown; error?: string | null; questionStatus?: "cancelled" | "expired"; by?: "run_end" | "stop" | "worker_exit" | "restart" },
  ) {
    await questions.closeForRun({
      runId,
      status: outcome.questionStatus ?? "cancelled",
      by: outcome.by ?? "run_end",
      feedback: outcome.error ?? null,
    });
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
    } else if (outcome.status === "cancelled") {
      await sessions.addMessage({ sessionId: run.sessionId, runId, role: "system", text: `Run ${run.functionName} stopped.` });
    }
  }

  function endLive(run: LiveRun) {
    clearTimeout(run.graceTimer);
    live.delete(run.runId);
    run.worker.off("message", run.onMessage);
    run.worker.off("exit", run.onExit);
    pool.release(run.worker);
    run.markEnded();
  }

  async function handleWorkerMessage(run: LiveRun, msg: ChildToParent) {
    switch (msg.type) {
      case "question.ask": {
        if (run.stopping) {
          run.worker.send({ type: "question.settled", runId: run.runId, questionId: msg.questionId, outcome: "cancelled", value: null, feedback: "The run is stopping." });
          return;
        }
        try {
          await questions.create({ id: msg.questionId, runId: run.runId, sessionId: run.sessionId, owner: run.functionName, spec: msg.spec });
        } catch (err) {
          console.error(`[runs] could not store a question of ${run.runId}`, err);
          run.worker.send({ type: "question.settled", runId: run.runId, questionId: msg.questionId, outcome: "cancelled", value: null, feedback: "The question could not be stored." });
          return;
        }
        await syncWaiting(run.runId);
        return;
      }
      case "run.say":
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.runId, role: "agent", text: msg.text });
        return;
      case "run.progress":
        await db.run.updateMany({ where: { id: run.runId, status: { in: ACTIVE } }, data: { progress: msg.text } });
        await publishRun(run.runId);
        return;
      case "run.finished":
        await finishFromWorker(run, msg);
        return;
    }
  }

  async function finishFromWorker(run: LiveRun, msg: RunFinishedMessage) {
    const status = run.stopping ? "cancelled" : msg.status;
    await finishRun(run.runId, {
      status,
      result: msg.result,
      error: status === "succeeded" ? null : (msg.error?.message ?? (status === "cancelled" ? "Stopped." : "Unknown error")),
      by: run.stopping ? "stop" : "run_end",
    });
    endLive(run);
  }

  async function handleWorkerExit(run: LiveRun, exit: WorkerExit) {
    const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
    if (run.stopping) {
      await finishRun(run.runId, { status: "cancelled", error: `Stopped; the worker did not end in time and was killed (${how}).`, by: "stop" });
    } else {
      await finishRun(run.runId, {
        status: "failed",
        error: `The worker process ended unexpectedly (${how}).`,
        questionStatus: "expired",
        by: "worker_exit",
      });
    }
    endLive(run);
  }

  // Deliver every settled question to the worker still waiting on it (the answer queue).
  events.on("question.closed", (question: Question) => {
    const run = live.get(question.runId);
    if (!run) return;
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
    });
  });

  async function startRun({ sessionId, functionName, input = null, canAsk = true }: { sessionId: string; functionName: string; input?: unknown; canAsk?: boolean }): Promise<Run> {
    if (!hasFunction(functionName)) throw new AppError("not_found:function", `No agent function named "${functionName}".`);
    await sessions.getSession({ id: sessionId });
    let serializedInput: string;
    try {
      serializedInput = JSON.stringify(input ?? null);
    } catch {
      throw new AppError("bad_request", "The run input must be plain JSON.");
    }
    const row = await db.run.create({ data: { id: randomUUID(), sessionId, functionName, input: serializedInput, status: "running" } });
    const run = toRun(row);
    events.emit("run.updated", run);

    let worker: AgentWorker;
    try {
      worker = await pool.acquire();
    } catch (err) {
      console.error("[runs] no worker could be started", err);
      await finishRun(run.id, { status: "failed", error: "No worker process could be started." });
      return getRun({ id: run.id });
    }
    let markEnded!: () => void;
    const ended = new Promise<void>((resolve) => (markEnded = resolve));
    const entry: LiveRun = {
      runId: run.id,
      sessionId,
      functionName,
      worker,
      chain: Promise.resolve(),
      stopping: false,
      ended,
      markEnded,
      onMessage: (msg) => {
        if ("runId" in msg && msg.runId !== run.id) return;
        enqueue(entry, () => handleWorkerMessage(entry, msg));
      },
      onExit: (exit) => enqueue(entry, () => handleWorkerExit(entry, exit)),
    };
    live.set(run.id, entry);
    worker.on("message", entry.onMessage);
    worker.on("exit", entry.onExit);
    if (!worker.send({ type: "run.start", runId: run.id, sessionId, functionName, input: input ?? null, canAsk })) {
      enqueue(entry, () => handleWorkerExit(entry, worker.exitInfo ?? { code: null, signal: null }));
    }
    return run;
  }

  return {
    getRun,
    startRun,

    /** Stops a run: its questions end as cancelled, its worker gets a grace period, then is killed. */
    async stopRun({ id }: { id: string }): Promise<Run> {
      const current = await getRun({ id });
      if (!ACTIVE.includes(current.status)) return current;
      const run = live.get(id);
      if (!run) {
        await finishRun(id, { status: "cancelled", error: "Stopped.", by: "stop" });
        return getRun({ id });
      }
      if (!run.stopping) {
        run.stopping = true;
        await questions.closeForRun({ runId: id, status: "cancelled", by: "stop", feedback: "The run was stopped." });
        run.worker.send({ type: "run.cancel", runId: id, reason: "The run was stopped." });
        run.graceTimer = setTimeout(() => run.worker.kill("SIGKILL"), stopGraceMs);
      }
      await run.ended;
      return getRun({ id });
    },

    async listRuns({ sessionId }: { sessionId: string }): Promise<Run[]> {
      const rows = await db.run.findMany({ where: { sessionId }, orderBy: { createdAt: "asc" } });
      return rows.map(toRun);
    },

    /**
     * At start-up nothing is live yet: runs left active by the previous process cannot continue,
     * so they fail and their questions expire, and the transcript says so.
     */
    async recoverAfterRestart(): Promise<{ runs: number; questions: number }> {
      const orphans = await db.run.findMany({ where: { status: { in: ACTIVE } } });
      let closed = 0;
      for (const row of orphans) {
        const ended = await questions.closeForRun({ runId: row.id, status: "expired", by: "restart", feedback: "The server restarted." });
        closed += ended.length;
        for (const q of ended) {
          await sessions.addMessage({ sessionId: row.sessionId, runId: row.id, role: "system", text: `The question "${q.prompt}" expired: the server restarted before it was answered.` });
        }
        await finishRun(row.id, { status: "failed", error: "The server restarted while this run was active.", questionStatus: "expired", by: "restart" });
      }
      return { runs: orphans.length, questions: closed };
    },

    /** Active runs with a live worker (for health checks and tests). */
    liveCount: () => live.size,

    /**
     * Lets go of every live run without ending it, before the process exits: its workers die
     * with the server and the next start-up settles what was left (see recoverAfterRestart).
     */
    detachAll(): void {
      for (const run of live.values()) {
        clearTimeout(run.graceTimer);
        run.worker.off("message", run.onMessage);
        run.worker.off("exit", run.onExit);
        run.markEnded();
      }
      live.clear();
    },
  };
}

export type RunService = ReturnType<typeof createRunService>;
