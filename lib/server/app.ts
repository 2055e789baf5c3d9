import path from "node:path";
import { ACTIVE_RUN_STATUSES, type AgentFunctionInfo, type Run } from "../protocol/entities";
import { AppError } from "../protocol/errors";
import type { Receipt } from "../protocol/question";
import { agentFunctions, CHAT_FUNCTION, findAgentFunction } from "../../workers/functions";
import { createCommandService } from "./commands/command-service";
import { createDb, type Db } from "./db/client";
import { migrateSqlite } from "./db/migrate";
import { DomainEvents } from "./events";
import { createQuestionService } from "./questions/question-service";
import { createRunService } from "./runs/run-service";
import { createSessionService } from "./sessions/session-service";
import { WorkerPool, type WorkerPoolOptions } from "./workers/worker-pool";

export interface ParleyConfig {
  databaseUrl: string;
  /** Folder with prisma/migrations; defaults to the working directory's. */
  migrationsDir?: string;
  worker: WorkerPoolOptions;
  stopGraceMs?: number;
  /** How long a run may wait in its worker before the worker is released. */
  parkAfterMs?: number;
  /** How often to apply commands recorded while no server ran (the CLI's inbox). */
  inboxPollMs?: number;
}

/**
 * The composition root of the domain: builds every service once from injected parts.
 * Transports (REST route handlers, Socket.IO) only call what this returns.
 */
export async function createParley(config: ParleyConfig) {
  migrateSqlite(config.databaseUrl, config.migrationsDir ?? path.resolve("prisma/migrations"));
  const db: Db = await createDb(config.databaseUrl);
  const events = new DomainEvents();
  const commands = createCommandService({ db });
  const sessions = createSessionService({ db, events });
  const questions = createQuestionService({ db, events, commands });
  const pool = new WorkerPool(config.worker);
  const runs = createRunService({
    db,
    events,
    sessions,
    questions,
    commands,
    pool,
    hasFunction: (name) => findAgentFunction(name) !== undefined,
    stopGraceMs: config.stopGraceMs,
    parkAfterMs: config.parkAfterMs,
  });

  // Keep session lists' pending counts true.
  const publishSession = (q: { sessionId: string }) =>
    void sessions.publish(q.sessionId).catch((err) => console.error("[sessions] publish failed", err));
  events.on("question.asked", publishSession);
  events.on("question.closed", publishSession);

  /** Applies commands that the CLI recorded in the database, in the order they were recorded. */
  async function applyInbox(): Promise<number> {
    const queued = await commands.listQueued();
    for (const cmd of queued) {
      const payload = cmd.payload as { questionId?: string; runId?: string; value?: unknown; message?: string | null; digest?: string | null };
      try {
        if (cmd.kind === "send_input") {
          await questions.reply({ id: payload.questionId!, value: payload.value, digest: payload.digest ?? undefined, commandId: cmd.id, by: "cli" });
        } else if (cmd.kind === "reject_input") {
          await questions.reject({ id: payload.questionId!, message: payload.message ?? undefined, digest: payload.digest ?? undefined, commandId: cmd.id, by: "cli" });
        } else if (cmd.kind === "resume") {
          await resume({ runId: payload.runId!, commandId: cmd.id });
        } else {
          throw new AppError("bad_request", `Commands of kind ${cmd.kind} cannot be queued.`);
        }
      } catch (err) {
        const error = AppError.from(err);
        if (error.code === "internal") console.error(`[inbox] command ${cmd.id} failed`, err);
        await commands.markRejected({ commandId: cmd.id, kind: cmd.kind, error: { code: error.code, message: error.message } });
      }
    }
    return queued.length;
  }

  /** Resumes a run that is active but not in a worker (e.g. after a restart or a failed resume). */
  async function resume({ runId, commandId }: { runId: string; commandId?: string }): Promise<Receipt> {
    return commands.run<Receipt>({ commandId, kind: "resume", payload: { runId } }, async ({ commandId: cid, record }) => {
      const run = await runs.getRun({ id: runId });
      const applies = ACTIVE_RUN_STATUSES.includes(run.status);
      const receipt: Receipt = { commandId: cid, kind: "resume", record_state: "durably_recorded", apply_state: applies ? "applied" : "target_closed", runId };
      await db.$transaction((tx) => record(tx, receipt));
      if (applies) void runs.activate(runId);
      return receipt;
    });
  }

  const recovered = await runs.recoverAfterRestart();
  const applied = await applyInbox();
  pool.warm();
  let inboxBusy = false;
  const inboxTimer = setInterval(() => {
    if (inboxBusy) return;
    inboxBusy = true;
    applyInbox()
      .catch((err) => console.error("[inbox] failed", err))
      .finally(() => (inboxBusy = false));
  }, config.inboxPollMs ?? 1_000);
  inboxTimer.unref();

  return {
    db,
    events,
    commands,
    sessions,
    questions,
    runs,
    pool,
    recovered: { ...recovered, inbox: applied },
    resume,
    applyInbox,

    listFunctions(): AgentFunctionInfo[] {
      return agentFunctions.map(({ name, description }) => ({ name, description }));
    },

    /** A chat message: stored, then answered by a run of the chat agent. Refused while the session waits for an answer. */
    async postMessage({ sessionId, text }: { sessionId: string; text: string }): Promise<Run> {
      await sessions.getSession({ id: sessionId });
      const waiting = await runs.waitingQuestionOf({ sessionId });
      if (waiting) {
        throw new AppError("session_busy", `This session is waiting for an answer to "${waiting.prompt}". Answer it, or stop its run, before starting a new turn.`, {
          details: { questionId: waiting.id, runId: waiting.runId },
        });
      }
      await sessions.addMessage({ sessionId, role: "user", text });
      await sessions.titleFromMessage({ id: sessionId, text });
      return runs.startRun({ sessionId, functionName: CHAT_FUNCTION, input: { text } });
    },

    async close(): Promise<void> {
      clearInterval(inboxTimer);
      runs.detachAll();
      questions.dispose();
      await pool.shutdown();
      await db.$disconnect();
    },
  };
}

export type Parley = Awaited<ReturnType<typeof createParley>>;
