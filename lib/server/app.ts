import path from "node:path";
import type { AgentFunctionInfo, Run } from "../protocol/entities";
import { agentFunctions, CHAT_FUNCTION, findAgentFunction } from "../../workers/functions";
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
}

/**
 * The composition root of the domain: builds every service once from injected parts.
 * Transports (REST route handlers, Socket.IO) only call what this returns.
 */
export async function createParley(config: ParleyConfig) {
  migrateSqlite(config.databaseUrl, config.migrationsDir ?? path.resolve("prisma/migrations"));
  const db: Db = createDb(config.databaseUrl);
  const events = new DomainEvents();
  const sessions = createSessionService({ db, events });
  const questions = createQuestionService({ db, events });
  const pool = new WorkerPool(config.worker);
  const runs = createRunService({
    db,
    events,
    sessions,
    questions,
    pool,
    hasFunction: (name) => findAgentFunction(name) !== undefined,
    stopGraceMs: config.stopGraceMs,
  });

  // Keep session lists' pending counts true.
  const publishSession = (q: { sessionId: string }) =>
    void sessions.publish(q.sessionId).catch((err) => console.error("[sessions] publish failed", err));
  events.on("question.asked", publishSession);
  events.on("question.closed", publishSession);

  const recovered = await runs.recoverAfterRestart();
  pool.warm();

  return {
    db,
    events,
    sessions,
    questions,
    runs,
    pool,
    recovered,

    listFunctions(): AgentFunctionInfo[] {
      return agentFunctions.map(({ name, description }) => ({ name, description }));
    },

    /** A chat message: stored, then answered by a run of the chat agent. */
    async postMessage({ sessionId, text }: { sessionId: string; text: string }): Promise<Run> {
      await sessions.getSession({ id: sessionId });
      await sessions.addMessage({ sessionId, role: "user", text });
      await sessions.titleFromMessage({ id: sessionId, text });
      return runs.startRun({ sessionId, functionName: CHAT_FUNCTION, input: { text } });
    },

    async close(): Promise<void> {
      runs.detachAll();
      questions.dispose();
      await pool.shutdown();
      await db.$disconnect();
    },
  };
}

export type Parley = Awaited<ReturnType<typeof createParley>>;
