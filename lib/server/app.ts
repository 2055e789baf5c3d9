import path from "node:path";
import type { AgentFunctionInfo, Run } from "../protocol/entities";
import { AppError } from "../protocol/errors";
import { CHANNEL_WAIT_MS, MAX_OUTBOX_PAGE, channelSender, formatChannelReply, type ChannelOutbox, type ChannelReply } from "../protocol/channels";
import type { Question } from "../protocol/question";
import { helpText } from "../protocol/text-commands";
import { systemClock, type Clock } from "./clock";
import { createInbox } from "./commands/inbox";
import { createResume } from "./commands/resume";
import { createTextCommands, type TextCommandResult } from "./commands/text-commands";
import { createDb, type Db, type DbOptions, type Tx } from "./db/client";
import { migrateDatabase } from "./db/migrate";
import { openAccess, type AccessOptions } from "./access/access";
import { createRevokeApiToken } from "./access/revoke-api-token";
import { createSignOutEverywhere } from "./access/sign-out-everywhere";
import { createDomainServices } from "./domain-services";
import { createMetrics, type Metrics } from "./metrics";
import { coalescePerKey } from "./coalesce";
import { createClusterLink, type ClusterLink } from "./cluster/cluster-link";
import { createNodeLease } from "./cluster/node-lease";
import { createRunLeases } from "./cluster/run-leases";
import { engineOf } from "./db/engine";
import { createPermissionService } from "./permissions/permission-service";
import { loadProjectRules } from "./permissions/project-rules";
import type { PermissionRuleInput, ToolInfo } from "../protocol/permissions";
import { createRunService } from "./runs/run-service";
import { loadChatHistory } from "./sessions/chat-history";
import { sessionWaitingError } from "./sessions/session-busy";
import { WorkerPool, type WorkerPoolOptions } from "./workers/worker-pool";
import type { WorkerPoolPort } from "./workers/worker-port";
import { log } from "./log";

/** The parts Parley is built from: real ones in server.ts, fakes in tests. */
export interface ParleyParts {
  db: Db;
  pool: WorkerPoolPort;
  /** The agent functions a run may name: a fixed list, or what the workers loaded now (it changes when they reload). */
  functions: FunctionList;
  /** The tool catalogue the workers' functions call through (which are dangerous); a rule naming another tool is flagged. */
  tools?: readonly ToolInfo[];
  /** The function that answers chat messages. */
  chatFunction?: string;
  clock?: Clock;
  /** Where statements, timed phases and parked runs are counted (a fresh registry by default). */
  metrics?: Metrics;
  /** This node's end of the cluster bus (several nodes on one PostgreSQL database); one node alone by default. */
  cluster?: ClusterLink;
}

export interface ParleyOptions {
  stopGraceMs?: number;
  /** How long a run may wait in its worker before the worker is released (while the pool has room). */
  parkAfterMs?: number;
  /** How often to apply commands recorded while no server ran (the CLI's inbox). */
  inboxPollMs?: number;
  /** The server token and rate limits; without a token one is generated. */
  access?: AccessOptions;
  /** The project's default permission rules (openParley reads them from the project's file). */
  projectRules?: readonly PermissionRuleInput[];
  /**
   * Several nodes on one database: each run is executed by the node holding its lease, renewed
   * within this time (ms); one node owns the expiry timers. 0 or unset: this node alone.
   */
  runLeaseMs?: number;
}

export const DEFAULT_RUN_LEASE_MS = 15_000;

export interface ParleyConfig extends ParleyOptions {
  databaseUrl: string;
  /** SQLite durability (`synchronous`) and how long to wait for a lock held by another process. */
  database?: DbOptions;
  /** The migrations root (holding sqlite/ and postgresql/); defaults to the working directory's prisma/migrations. */
  migrationsDir?: string;
  worker: WorkerPoolOptions;
  /** Default: what the workers load from their function folders (start-up waits for the first worker to say). */
  functions?: FunctionList;
  tools?: readonly ToolInfo[];
  /** The project's permission rules file; `parley.permissions.json` in the working directory by default. */
  permissionsFile?: string;
  /** Where start-up says what it migrates and where the backup went. */
  log?: (line: string) => void;
  /** This node's id among several, in its log lines too (a new one by default). */
  nodeId?: string;
}

type FunctionInfoInput = Pick<AgentFunctionInfo, "name" | "description"> & Partial<AgentFunctionInfo>;
export type FunctionList = readonly FunctionInfoInput[] | (() => readonly FunctionInfoInput[]);

/** Opens the real parts (migrated SQLite or PostgreSQL database, forked worker pool) and builds Parley from them. */
export async function openParley({ databaseUrl, database, migrationsDir, worker, functions, tools, permissionsFile, log, nodeId, ...options }: ParleyConfig) {
  // An invalid rules file stops start-up before anything opens.
  const projectRules = options.projectRules ?? loadProjectRules(permissionsFile);
  await migrateDatabase(databaseUrl, migrationsDir ?? path.resolve("prisma/migrations"), { log });
  const metrics = createMetrics({ processMetrics: true });
  const db = await createDb(databaseUrl, { ...database, observer: metrics });
  // On PostgreSQL several nodes may share the database: runs are leased. A SQLite file has one node.
  const runLeaseMs = engineOf(databaseUrl) === "postgresql" ? (options.runLeaseMs ?? DEFAULT_RUN_LEASE_MS) : 0;
  const pool = new WorkerPool(worker);
  if (!functions) await pool.catalogueReady();
  const cluster = createClusterLink(nodeId);
  const parley = await createParley({ db, pool, functions: functions ?? (() => pool.catalogue.functions), tools, metrics, cluster }, { ...options, projectRules, runLeaseMs });
  /** The real pool: what the workers loaded, and `reload` for new code (development). */
  return Object.assign(parley, { workerPool: pool });
}

/**
 * The composition root of the domain: builds every service once from the parts it is given.
 * Transports (REST route handlers, Socket.IO) only call what this returns.
 */
export async function createParley(parts: ParleyParts, config: ParleyOptions = {}) {
  const { db, pool, functions, tools = [], chatFunction = "chat", clock = systemClock, metrics = createMetrics(), cluster = createClusterLink() } = parts;
  const listed = (): readonly FunctionInfoInput[] => (typeof functions === "function" ? functions() : functions);
  const { events, commands, sessions, questions } = createDomainServices({ db, clock, metrics });
  const leaseMs = config.runLeaseMs ?? 0;
  const leases = leaseMs > 0 ? createRunLeases(db, { nodeId: cluster.nodeId, leaseMs, clock }) : undefined;
  if (leases) metrics.watchLeases(leases.held);
  cluster.on((m) => metrics.clusterMessage(m.type));
  const runs = createRunService({
    leases,
    cluster,
    db,
    events,
    sessions,
    questions,
    commands,
    pool,
    clock,
    hasFunction: (name) => listed().some((f) => f.name === name),
    stopGraceMs: config.stopGraceMs,
    parkAfterMs: config.parkAfterMs,
    metrics,
  });
  questions.deliverTo(runs.deliverQuestion);
  const permissions = createPermissionService({ db, events, projectRules: config.projectRules ?? [], tools });
  questions.judgeApprovalsWith(permissions);
  const access = await openAccess(db, config.access, { now: () => clock.now() });
  const signOutEverywhere = createSignOutEverywhere({ browserSessions: access.browserSessions, cluster, events });
  const revokeApiToken = createRevokeApiToken({ apiTokens: access.apiTokens, cluster, events });

  // Several nodes: one of them keeps the expiry timers; the others hand it theirs.
  const scheduleSoon = () => void questions.rescheduleExpiries(new Date(clock.now() + leaseMs)).catch((err) => log.error({ err }, "[questions] could not schedule expiries"));
  const expiryTimers = leases
    ? createNodeLease(db, {
        name: "expiry-timers",
        nodeId: cluster.nodeId,
        leaseMs,
        clock,
        onGain: scheduleSoon,
        onLose: () => questions.dropTimers(),
        // In rounds, the timers due soon: one whose hand-off was lost (no bus) is not forgotten.
        onRound: scheduleSoon,
      })
    : null;
  if (expiryTimers) {
    questions.ownTimersWith({
      owns: expiryTimers.holding,
      handOff: (id, expiresAt) => void cluster.publish({ type: "question.expiring", to: null, id, expiresAt: expiresAt.toISOString() }),
    });
    cluster.on((m) => m.type === "question.expiring" && questions.expireAt(m.id, new Date(m.expiresAt)));
    await expiryTimers.start();
  }

  // A tab may join a session on a node other than the one whose run streams a reply in it.
  cluster.answerWith((q) => (q.type === "session.streams" ? sessions.openStreams(q.sessionId) : null));
  sessions.streamsFrom(async (sessionId) => (await cluster.ask({ type: "session.streams", sessionId })).flat());

  // Keep session lists' pending counts true.
  // A burst of questions (many runs asking at once) is one read and one announcement per session.
  const publishSoon = coalescePerKey(sessions.publish, (sessionId, err) => log.error({ sessionId, err }, "[sessions] publish failed"));
  const publishSession = (q: { sessionId: string }) => publishSoon(q.sessionId);
  events.on("question.asked", publishSession);
  events.on("question.closed", publishSession);

  const textCommands = createTextCommands({ db, sessions, questions });
  const resume = createResume({ commands, runs });
  const inbox = createInbox({ commands, questions, resume, stop: runs.stopRun, pollMs: config.inboxPollMs });
  /** Applies commands that the CLI recorded in the database, in the order they were recorded. */
  const applyInbox = inbox.applyOnce;

  // A delete the server stopped in the middle of is finished first: nothing of it is resumed.
  for (const id of await sessions.listDeleted()) await sessions.removeDeleted({ id });
  const recovered = await runs.recoverAfterRestart();
  const applied = await applyInbox();
  pool.warm();
  inbox.start();

  /** A new chat turn is refused while a question of the session waits, a run's beside the turns too: its card is the answer box. */
  async function refuseWhileWaiting(tx: Tx, sessionId: string): Promise<void> {
    const waiting = await questions.firstPendingIn(tx, { sessionId });
    if (waiting) throw sessionWaitingError(waiting);
  }

  return {
    db,
    metrics,
    cluster,
    events,
    commands,
    sessions,
    questions,
    runs,
    permissions,
    pool,
    access,
    /** Refuses every browser session cookie issued before now, on every node, and drops their sockets. */
    signOutEverywhere,
    /** Refuses an API token from now on and drops its sockets (this node's before it answers, the others' over the bus). */
    revokeApiToken,
    /**
     * A new server token (kept in the token file): the old one is refused at once, sockets signed
     * in with it are dropped, and so are browser cookies (they were signed in with the old token).
     * One node alone only: the other nodes of a database would keep the old token.
     */
    async rotateServerToken(): Promise<{ rotatedAt: string }> {
      if (leases) throw new AppError("forbidden", "Several nodes share this database: give every node the same new PARLEY_TOKEN and restart them.");
      access.rotateServerToken();
      events.emit("server-token.rotated");
      const { at } = await signOutEverywhere();
      return { rotatedAt: at };
    },
    recovered: { ...recovered, inbox: applied },
    resume,
    applyInbox,

    /** This node among several: its id, how many runs it holds leases on, and whether it keeps the expiry timers (a node alone always does). */
    node: () => ({ id: cluster.nodeId, leasedRuns: leases?.held() ?? null, expiryTimers: expiryTimers ? expiryTimers.holding() : true }),

    listFunctions(): AgentFunctionInfo[] {
      return listed().map(({ name, description, command = null, tool = false }) => ({ name, description, command, tool }));
    },

    /**
     * A chat message: stored with the run of the chat agent that answers it, in one transaction.
     * A session runs one turn at a time: while a turn is active, or a question waits, it is busy.
     * A text command (`/answer`, `/decline`, `/approve`) is applied instead, busy or not: it answers
     * a pending question as its card would, and starts no run.
     */
    async postMessage({ sessionId, text, sender }: { sessionId: string; text: string; sender?: string }): Promise<Run | TextCommandResult> {
      await sessions.getSession({ id: sessionId });
      const command = await textCommands.apply({ sessionId, text });
      if (command) return command;
      // The model's context: the session's earlier messages, bounded (this one is stored below).
      const history = await loadChatHistory(db, sessionId);
      let message: Awaited<ReturnType<typeof sessions.recordMessage>> | undefined;
      const run = await runs.startRun({
        sessionId,
        functionName: chatFunction,
        input: { text, history },
        turnOf: sessionId,
        alongWith: async (tx, runId) => {
          await refuseWhileWaiting(tx, sessionId);
          // The message belongs to the turn it starts: the transcript keeps them together.
          message = await sessions.recordMessage(tx, { sessionId, role: "user", text, runId, sender });
        },
        alongWithNow:
          questions.firstPendingNow && sessions.recordMessageNow
            ? (runId) => {
                const waiting = questions.firstPendingNow!({ sessionId });
                if (waiting) throw sessionWaitingError(waiting);
                message = sessions.recordMessageNow!({ sessionId, role: "user", text, runId, sender });
              }
            : undefined,
        // Tabs see the message before the run that answers it.
        committed: () => sessions.announceMessage(message!),
      });
      await sessions.titleFromMessage({ id: sessionId, text });
      return run;
    },

    /**
     * Runs a failed chat turn again: the same message and context, in a new turn and without a
     * second user message. Only the session's latest turn, and only once: not_retryable otherwise
     * (checked again in the new run's transaction, so two tabs' Retry start one turn).
     */
    async retryTurn({ runId }: { runId: string }): Promise<Run> {
      const failed = await runs.getRun({ id: runId });
      const notRetryable = (why: string) => new AppError("not_retryable", `Run ${runId} cannot be retried: ${why}.`);
      if (failed.functionName !== chatFunction) throw notRetryable("only a chat turn can be");
      if (failed.status !== "failed") throw notRetryable(`it ${failed.status === "succeeded" ? "succeeded" : `is ${failed.status.replace("_", " ")}`}`);
      const input = typeof failed.input === "object" && failed.input !== null ? (failed.input as Record<string, unknown>) : {};
      const { sessionId } = failed;
      return runs.startRun({
        sessionId,
        functionName: chatFunction,
        input: { ...input, retryOf: runId },
        turnOf: sessionId,
        alongWith: async (tx, newRunId) => {
          await refuseWhileWaiting(tx, sessionId);
          if (await runs.store.startedSince(tx, { sessionId, functionName: chatFunction, since: failed.createdAt, except: [runId, newRunId] })) {
            throw notRetryable("a later turn was started (a Retry, or a new message)");
          }
        },
      });
    },

    /**
     * A plain-text channel's message (non-blocking mode): a text command is applied; with exactly
     * one question pending, plain text answers it (closed by "channel", the sender in the reply);
     * else it starts a chat turn, and the reply says what the agent said within CHANNEL_WAIT_MS
     * and the question it asks, if any. The request is never held open for an answer.
     */
    async channelText({ sessionId, from, text, waitMs = CHANNEL_WAIT_MS }: { sessionId: string; from: string; text: string; waitMs?: number }): Promise<ChannelReply> {
      await sessions.getSession({ id: sessionId });
      const command = await textCommands.apply({ sessionId, text, by: "channel", from, plainAnswer: true });
      if (command) {
        return { reply: command.reply.text, from, outcome: command.outcome, questionId: command.question?.id ?? null, runId: command.question?.runId ?? null, cursor: command.reply.id };
      }
      const waiting = await questions.listPending({ sessionId });
      if (waiting.length > 1) {
        return { reply: helpText("Several questions are waiting: say which one you answer.", waiting), from, outcome: "refused", questionId: null, runId: null, cursor: null };
      }
      const started = await this.postMessage({ sessionId, text, sender: channelSender(from) });
      if (!("status" in started)) throw new Error("a chat message started no run");
      const deadline = Date.now() + waitMs;
      let pending: Question[] = [];
      for (;;) {
        pending = await questions.listPending({ sessionId });
        const run = await runs.getRun({ id: started.id });
        if (pending.length > 0 || (run.status !== "running" && run.status !== "waiting_input") || Date.now() >= deadline) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const said = await db.message.findMany({ where: { sessionId, runId: started.id, role: { in: ["agent", "system"] } }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
      const last = await db.message.findFirst({ where: { sessionId, role: { in: ["agent", "system"] } }, orderBy: [{ createdAt: "desc" }, { id: "desc" }] });
      return {
        reply: formatChannelReply({ said: said.map((m) => m.text), pending }),
        from,
        outcome: "started",
        questionId: pending[0]?.id ?? null,
        runId: started.id,
        cursor: last?.id ?? null,
      };
    },

    /** A session's agent and system messages after a cursor (a message id), oldest first, for a channel adapter to relay. */
    async channelOutbox({ sessionId, after }: { sessionId: string; after?: string }): Promise<ChannelOutbox> {
      await sessions.getSession({ id: sessionId });
      let since: { createdAt: Date; id: string } | null = null;
      if (after !== undefined) {
        since = await db.message.findFirst({ where: { id: after, sessionId }, select: { createdAt: true, id: true } });
        if (!since) throw new AppError("bad_request", "after is not a message of this session: pass the cursor of an earlier outbox answer.");
      }
      const rows = await db.message.findMany({
        where: {
          sessionId,
          role: { in: ["agent", "system"] },
          ...(since ? { OR: [{ createdAt: { gt: since.createdAt } }, { createdAt: since.createdAt, id: { gt: since.id } }] } : {}),
        },
        orderBy: [{ createdAt: "asc" }, { id: "asc" }],
        take: MAX_OUTBOX_PAGE,
      });
      const messages = rows.map((m) => ({ id: m.id, role: m.role as "agent" | "system", text: m.text, createdAt: m.createdAt.toISOString() }));
      return { messages, cursor: messages.at(-1)?.id ?? after ?? null };
    },

    /**
     * Deletes a chat. In this order: the session is marked deleted (from then on it is not found,
     * and no run can start in it: a run's insert checks the mark in its own transaction); its
     * active runs are stopped, which cancels their pending questions (every tab retracts the
     * cards: `question.rejected`, status `cancelled`); anything still pending is cancelled; the
     * session is removed with all it holds; then the owner's tabs hear `session.deleted`.
     * Of concurrent deletes one does this and the others get not_found.
     */
    async deleteSession({ id }: { id: string }): Promise<{ id: string; deleted: true }> {
      const { ownerId } = await sessions.markDeleted({ id });
      const reason = "The chat was deleted.";
      await runs.stopSessionRuns({ sessionId: id, reason });
      const leftover = new Set((await questions.listPending({ sessionId: id })).map((q) => q.runId));
      for (const runId of leftover) await questions.closeForRun({ runId, status: "cancelled", by: "stop", feedback: reason });
      await sessions.removeDeleted({ id });
      events.emit("session.deleted", { id, ownerId });
      return { id, deleted: true };
    },

    async close(): Promise<void> {
      await inbox.stop();
      runs.detachAll();
      questions.dispose();
      publishSoon.stop();
      await expiryTimers?.stop();
      await pool.shutdown();
      await runs.handOver();
      await db.$disconnect();
    },
  };
}

export type Parley = Awaited<ReturnType<typeof createParley>>;
/** Parley on its real parts (what server.ts runs): with the worker pool itself. */
export type OpenedParley = Awaited<ReturnType<typeof openParley>>;
