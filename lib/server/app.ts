import path from "node:path";
import type { AgentFunctionInfo, Run } from "../protocol/entities";
import { AppError } from "../protocol/errors";
import { agentFunctions, CHAT_FUNCTION, findAgentFunction } from "../../workers/functions";
import { createCommandService } from "./commands/command-service";
import { createInbox } from "./commands/inbox";
import { createResume } from "./commands/resume";
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

  const resume = createResume({ commands, runs });
  const inbox = createInbox({ commands, questions, resume, stop: runs.stopRun, pollMs: config.inboxPollMs });
  /** Applies commands that the CLI recorded in the database, in the order they were recorded. */
  const applyInbox = inbox.applyOnce;

  const recovered = await runs.recoverAfterRestart();
  const applied = await applyInbox();
  pool.warm();
  inbox.start();

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
      await inbox.stop();
      runs.detachAll();
      questions.dispose();
      await pool.shutdown();
      await db.$disconnect();
    },
  };
}

export type Parley = Awaited<ReturnType<typeof createParley>>;
