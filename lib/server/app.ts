import path from "node:path";
import type { AgentFunctionInfo } from "../protocol/entities";
import { AppError } from "../protocol/errors";
import { systemClock, type Clock } from "./clock";
import { createInbox } from "./ledger/inbox";
import { createResume } from "./ledger/resume";
import { createTextCommands } from "./commands/text-commands";
import { createDb, type Db, type DbOptions } from "./store/db/client";
import { migrateDatabase } from "./store/db/migrate";
import { openAccess, type AccessOptions } from "./access/access";
import { createRevokeApiToken } from "./access/revoke-api-token";
import { createSignOutEverywhere } from "./access/sign-out-everywhere";
import { createPeopleChanged } from "./access/people-changed";
import { createHeldRequests } from "./access/held-requests";
import { createPeople } from "./people/people-service";
import { createDomainServices } from "./domain-services";
import { createAuditService } from "./audit/audit-service";
import { DomainEvents } from "./events";
import { createMetrics, type Metrics } from "./metrics";
import { coalescePerKey } from "./coalesce";
import { createClusterLink, type ClusterLink } from "./cluster/cluster-link";
import { createNodeLease } from "./cluster/node-lease";
import { createRunLeases } from "./cluster/run-leases";
import { engineOf } from "./store/db/engine";
import { createPermissionService } from "./permissions/permission-service";
import { loadProjectRules } from "./permissions/project-rules";
import type { PermissionRuleInput, ToolInfo } from "../protocol/permissions";
import type { EditedCallReader } from "./questions/approval-edit";
import { createRunService } from "./runs/run-service";
import { createChatTurns } from "./sessions/chat-turns";
import { createSessionMembers } from "./sessions/session-members";
import { createAskService } from "./asks/ask-service";
import { lazyMcpEndpoint } from "./mcp/lazy-mcp-endpoint";
import { createTextChannel } from "./commands/text-channel";
import { WorkerPool, type WorkerPoolOptions } from "./workers/worker-pool";
import type { WorkerPoolPort } from "./workers/worker-port";
import { log } from "./log";
import { LOCAL_OWNER } from "../protocol/access";
import { createWebhookOutbox, type WebhookOptions } from "./webhooks/webhook-outbox";
import { loadWebhookSecret } from "./webhooks/webhook-secret";
import { createPushOutbox, type PushOptions } from "./push/push-outbox";
import { createPushDevices } from "./push/push-devices";
import { loadVapidKeys } from "./push/vapid-keys";

/** The parts Parley is built from: real ones in server.ts, fakes in tests. */
export interface ParleyParts {
  db: Db;
  pool: WorkerPoolPort;
  /** The agent functions a run may name: a fixed list, or what the workers loaded now (it changes when they reload). */
  functions: FunctionList;
  /** The tool catalogue the workers' functions call through (which are dangerous); a rule naming another tool is flagged. */
  tools?: readonly ToolInfo[];
  /** Reads an approval's call again with an edited input, as the workers' tools do ("Edit and allow"); none: nothing is edited. */
  editedCalls?: EditedCallReader;
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
  /** How often an MCP tool call waiting for a person sends a progress notification. */
  mcpProgressMs?: number;
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
  /** Asks' callbacks: the hosts they may name, the retry base, and the secret (PARLEY_WEBHOOK_SECRET; unset: one kept in the database). */
  webhooks?: WebhookOptions & { secret?: string };
  /** Web Push: the hosts endpoints may name besides the push services, the retry base, and the VAPID keys (PARLEY_VAPID_*; unset: a pair kept in the database). */
  push?: PushOptions & { vapid?: { publicKey?: string; privateKey?: string; subject?: string } };
  /** Where people reach this server: the origin of the sign-in links it hands out (unset: the origin a request came to). */
  origin?: () => string;
}

export const DEFAULT_RUN_LEASE_MS = 15_000;

export interface ParleyConfig extends ParleyOptions {
  databaseUrl: string;
  /** SQLite durability (`synchronous`) and how long to wait for a lock held by another process. */
  database?: DbOptions;
  /** The migrations root (holding sqlite/ and postgresql/); defaults to the working directory's prisma/migrations. */
  migrationsDir?: string;
  /** The worker pool, or how to make one. */
  worker: WorkerPoolOptions | WorkerPool;
  /** Default: what the workers load from their function folders (start-up waits for the first worker to say). */
  functions?: FunctionList;
  tools?: readonly ToolInfo[];
  editedCalls?: EditedCallReader;
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
export async function openParley({ databaseUrl, database, migrationsDir, worker, functions, tools, editedCalls, permissionsFile, log, nodeId, ...options }: ParleyConfig) {
  // An invalid rules file stops start-up before anything opens.
  const projectRules = options.projectRules ?? loadProjectRules(permissionsFile);
  await migrateDatabase(databaseUrl, migrationsDir ?? path.resolve("prisma/migrations"), { log });
  const metrics = createMetrics({ processMetrics: true });
  const db = await createDb(databaseUrl, { ...database, observer: metrics });
  // On PostgreSQL several nodes may share the database: runs are leased. A SQLite file has one node.
  const runLeaseMs = engineOf(databaseUrl) === "postgresql" ? (options.runLeaseMs ?? DEFAULT_RUN_LEASE_MS) : 0;
  const pool = worker instanceof WorkerPool ? worker : new WorkerPool(worker);
  if (!functions) await pool.catalogueReady();
  const cluster = createClusterLink(nodeId);
  const parley = await createParley({ db, pool, functions: functions ?? (() => pool.catalogue.functions), tools, editedCalls, metrics, cluster }, { ...options, projectRules, runLeaseMs });
  /** The real pool: what the workers loaded, and `reload` for new code (development). */
  return Object.assign(parley, { workerPool: pool });
}

/**
 * The composition root of the domain: builds every service once from the parts it is given.
 * Transports (REST route handlers, Socket.IO) only call what this returns.
 */
export async function createParley(parts: ParleyParts, config: ParleyOptions = {}) {
  const { db, pool, functions, tools = [], editedCalls, chatFunction = "chat", clock = systemClock, metrics = createMetrics(), cluster = createClusterLink() } = parts;
  const listed = (): readonly FunctionInfoInput[] => (typeof functions === "function" ? functions() : functions);
  const events = new DomainEvents();
  const leaseMs = config.runLeaseMs ?? 0;
  const leases = leaseMs > 0 ? createRunLeases(db, { nodeId: cluster.nodeId, leaseMs, clock }) : undefined;
  if (leases) metrics.watchLeases(leases.held);
  cluster.on((m) => metrics.clusterMessage(m.type));
  const permissions = createPermissionService({ db, events, projectRules: config.projectRules ?? [], tools });

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
  const { commands, sessions, questions } = createDomainServices({
    db,
    clock,
    metrics,
    events,
    judge: permissions,
    editedCalls,
    // The answer queue: every settled question goes to its run.
    settled: (question) => runs.deliverQuestion(question),
    timerOwner: expiryTimers
      ? { owns: expiryTimers.holding, handOff: (id, expiresAt) => void cluster.publish({ type: "question.expiring", to: null, id, expiresAt: expiresAt.toISOString() }) }
      : undefined,
  });
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
  const access = await openAccess(db, config.access, { now: () => clock.now() });
  // Subscribed before anything settles at start-up (a restart's recovery closes questions too).
  const webhooks = createWebhookOutbox({ db, events, questions }, { ...config.webhooks, secret: await loadWebhookSecret(db, config.webhooks?.secret) });
  const vapid = await loadVapidKeys(db, config.push?.vapid);
  const pushOutbox = createPushOutbox({ db, events, questions }, { ...config.push, vapid });
  const pushDevices = createPushDevices({ db, hosts: config.push?.hosts });
  const held = createHeldRequests({ events, authenticator: access.authenticator, visibility: access.visibility });
  const signOutEverywhere = createSignOutEverywhere({ browserSessions: access.browserSessions, cluster, events });
  const revokeApiToken = createRevokeApiToken({ apiTokens: access.apiTokens, cluster, events });
  const people = createPeople({
    db,
    apiTokens: access.apiTokens,
    now: () => clock.now(),
    changed: createPeopleChanged({ cache: access.peopleCache, cluster, events }),
    revokeToken: revokeApiToken,
    // Heard by those who may read the name (GET /api/names): the person, who shares a chat with them, administrators.
    renamed: (renamed) =>
      void Promise.all([members.sharingWith(renamed.name), people.list()])
        .then(([sharing, everyone]) => {
          const audience = new Set([LOCAL_OWNER, renamed.name, ...sharing, ...everyone.filter((p) => p.admin).map((p) => p.name)]);
          events.emit("person.renamed", renamed, [...audience]);
        })
        .catch((error: unknown) => log.warn({ err: error, person: renamed.name }, "could not tell the tabs of a rename")),
  });

  if (expiryTimers) {
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

  const members = createSessionMembers({ db, events, sessions });
  const textCommands = createTextCommands({ db, sessions, questions });
  const resume = createResume({ commands, runs });
  const inbox = createInbox({ commands, questions, resume, stop: runs.stopRun, pollMs: config.inboxPollMs });

  // A delete the server stopped in the middle of is finished first: nothing of it is resumed.
  for (const id of await sessions.listDeleted()) await sessions.removeDeleted({ id });
  const recovered = await runs.recoverAfterRestart();
  const applied = await inbox.applyOnce();
  pool.warm();
  inbox.start();
  await webhooks.sweep();
  webhooks.start();
  await pushOutbox.sweep();
  pushOutbox.start();

  const turns = createChatTurns({ db, sessions, questions, runs, textCommands, chatFunction, functions: listed });
  const chatCommands = () => listed().flatMap((f) => (f.command ? [f.command] : []));
  const asks = createAskService({ db, sessions, runs, questions, events, callbackHosts: config.webhooks?.hosts });
  const mcp = lazyMcpEndpoint({ asks, version: "1", progressEveryMs: config.mcpProgressMs });
  const channel = createTextChannel({ db, sessions, questions, runs, textCommands, postMessage: turns.postMessage, chatCommands });

  return {
    db,
    metrics,
    cluster,
    events,
    commands,
    sessions,
    /** Who a session is shared with: its owner and its members. */
    members,
    questions,
    runs,
    /** Questions asked from outside Parley (the ask API): runs of the built-in `ask` function. */
    asks,
    /** Parley's MCP server (`/mcp`): the ask tools for agents outside Parley. */
    mcp,
    /** Asks' callbacks: the outbox of their signed deliveries. */
    webhooks,
    /** Web Push: the VAPID public key browsers subscribe with, a person's devices, and the outbox of pushes. */
    push: { publicKey: vapid.publicKey, devices: pushDevices, outbox: pushOutbox },
    permissions,
    /** Who settled each question, from where, or which rule did. */
    audit: createAuditService(db),
    pool,
    access,
    /** Requests held open for a person (event streams, `?wait=` reads, waiting MCP calls): they end when the credential or membership does. */
    held,
    /** Refuses every browser session cookie issued before now, on every node, and drops their sockets. */
    signOutEverywhere,
    /** Refuses an API token from now on and drops its sockets (this node's before it answers, the others' over the bus). */
    revokeApiToken,
    /** People (teams): added with a one-time sign-in link; a removal refuses their credentials and drops their sockets on every node. */
    people,
    /** The origin of the sign-in links this server hands out, when it knows where people reach it. */
    origin: config.origin,
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
    /** Applies commands that the CLI recorded in the database, in the order they were recorded. */
    applyInbox: inbox.applyOnce,

    /** This node among several: its id, how many runs it holds leases on, and whether it keeps the expiry timers (a node alone always does). */
    node: () => ({ id: cluster.nodeId, leasedRuns: leases?.held() ?? null, expiryTimers: expiryTimers ? expiryTimers.holding() : true }),

    listFunctions(): AgentFunctionInfo[] {
      return listed().map(({ name, description, command = null, tool = false }) => ({ name, description, command, tool }));
    },

    postMessage: turns.postMessage,
    retryTurn: turns.retryTurn,
    channelText: channel.receive,
    channelOutbox: channel.outbox,

    /**
     * Deletes a chat. In this order: the session is marked deleted (from then on it is not found,
     * and no run can start in it: a run's insert checks the mark in its own transaction); its
     * active runs are stopped, which cancels their pending questions (every tab retracts the
     * cards: `question.rejected`, status `cancelled`); anything still pending is cancelled; the
     * session is removed with all it holds; then its people's tabs (its owner's and members') hear `session.deleted`.
     * Of concurrent deletes one does this and the others get not_found.
     */
    async deleteSession({ id }: { id: string }): Promise<{ id: string; deleted: true }> {
      const { ownerId } = await sessions.markDeleted({ id });
      // Read before its rows go with it: nobody is added to a session whose delete has begun.
      const people = [ownerId, ...(await members.names(id))];
      const reason = "The chat was deleted.";
      await runs.stopSessionRuns({ sessionId: id, reason });
      const leftover = new Set((await questions.listPending({ sessionId: id })).map((q) => q.runId));
      for (const runId of leftover) await questions.closeForRun({ runId, status: "cancelled", by: "stop", feedback: reason });
      await sessions.removeDeleted({ id });
      events.emit("session.deleted", { id, people });
      return { id, deleted: true };
    },

    async close(): Promise<void> {
      held.close();
      await mcp.close();
      await inbox.stop();
      await webhooks.stop();
      await pushOutbox.stop();
      runs.detachAll();
      questions.dispose();
      publishSoon.stop();
      await expiryTimers?.stop();
      await pool.shutdown();
      await runs.handOver();
      await db.close();
    },
  };
}

export type Parley = Awaited<ReturnType<typeof createParley>>;
/** Parley on its real parts (what server.ts runs): with the worker pool itself. */
export type OpenedParley = Awaited<ReturnType<typeof openParley>>;
