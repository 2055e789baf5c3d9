import path from "node:path";
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
import { createQuestionSurfaces } from "./surfaces/question-surfaces";
import { createMetrics, type Metrics } from "./metrics";
import { createClusterLink, type ClusterLink } from "./cluster/cluster-link";
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
import { functionCatalogue, type FunctionList } from "./function-catalogue";
import { createExpiryTimers } from "./expiry-timers";
import { createSettlementPort } from "./settlement-port";
import { announceRename } from "./people/rename-announcement";
import { publishPendingCounts } from "./sessions/pending-counts";
import { recoverAndStart } from "./start-up";
import { createRotateServerToken } from "./access/rotate-server-token";
import { createDeleteSession } from "./sessions/delete-session";
import type { Parley } from "./parley";
import type { WorkerPoolPort } from "./workers/worker-port";
import { createWebhookOutbox, type WebhookOptions } from "./webhooks/webhook-outbox";
import { loadWebhookSecret } from "./webhooks/webhook-secret";
import { createPushOutbox, type PushOptions } from "./push/push-outbox";
import { createPushDevices } from "./push/push-devices";
import { loadVapidKeys } from "./push/vapid-keys";
import { createSlack, type SlackConfig } from "./slack/slack";
import { openEmail, type EmailConfig } from "./email/email";
import { createPersonEmails } from "./email/person-emails";

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
  /** Slack (docs/slack.md): its bot token, signing secret, default channel and Web API; unset: no Slack. */
  slack?: SlackConfig;
  /** Email (docs/email.md): the SMTP server, the sender, and where the links point; unset: no email. */
  email?: EmailConfig;
  /** Where people reach this server: the origin of the sign-in links it hands out (unset: the origin a request came to). */
  origin?: () => string;
}

export type { FunctionList } from "./function-catalogue";
export type { Parley } from "./parley";

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
 * The composition root of the domain: builds every service once from the parts it is given, each
 * after what it needs. Transports (REST route handlers, Socket.IO) only call what this returns.
 */
export async function createParley(parts: ParleyParts, config: ParleyOptions = {}): Promise<Parley> {
  const { db, pool, tools = [], editedCalls, chatFunction = "chat", clock = systemClock, metrics = createMetrics(), cluster = createClusterLink() } = parts;
  const functions = functionCatalogue(parts.functions);
  const events = new DomainEvents();
  // Subscribed first: the tabs hear a question before anything else does with it.
  const surfaces = createQuestionSurfaces(events);
  const leaseMs = config.runLeaseMs ?? 0;
  const leases = leaseMs > 0 ? createRunLeases(db, { nodeId: cluster.nodeId, leaseMs, clock }) : undefined;
  if (leases) metrics.watchLeases(leases.held);
  cluster.on((m) => metrics.clusterMessage(m.type));
  const permissions = createPermissionService({ db, events, projectRules: config.projectRules ?? [], tools });

  // Several nodes: one of them keeps the expiry timers; the others hand it theirs.
  const expiryTimers = leases ? createExpiryTimers({ db, cluster, clock, leaseMs }) : null;
  // The answer queue: every settled question goes to its run.
  const settlements = createSettlementPort();
  const { commands, sessions, questions } = createDomainServices({ db, clock, metrics, events, judge: permissions, editedCalls, settled: settlements.settled, timerOwner: expiryTimers?.timerOwner });
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
    hasFunction: functions.has,
    stopGraceMs: config.stopGraceMs,
    parkAfterMs: config.parkAfterMs,
    metrics,
  });
  settlements.deliverTo(runs.deliverQuestion);
  const access = await openAccess(db, config.access, { now: () => clock.now() });
  const webhooks = createWebhookOutbox({ db, questions }, { ...config.webhooks, secret: await loadWebhookSecret(db, config.webhooks?.secret) });
  const vapid = await loadVapidKeys(db, config.push?.vapid);
  const pushOutbox = createPushOutbox({ db, questions }, { ...config.push, vapid });
  const pushDevices = createPushDevices({ db, hosts: config.push?.hosts });
  const held = createHeldRequests({ events, authenticator: access.authenticator, visibility: access.visibility });
  const signOutEverywhere = createSignOutEverywhere({ browserSessions: access.browserSessions, cluster, events });
  const revokeApiToken = createRevokeApiToken({ apiTokens: access.apiTokens, cluster, events });
  const members = createSessionMembers({ db, events, sessions });
  const people = createPeople({
    db,
    apiTokens: access.apiTokens,
    now: () => clock.now(),
    changed: createPeopleChanged({ cache: access.peopleCache, cluster, events }),
    revokeToken: revokeApiToken,
    // Its administrators hear every rename: the list is the service's own.
    renamed: announceRename({ events, members, everyone: () => people.list() }),
  });

  const textCommands = createTextCommands({ db, sessions, questions });
  const turns = createChatTurns({ db, sessions, questions, runs, textCommands, chatFunction, functions: functions.listed });
  const asks = createAskService({ db, sessions, runs, questions, events, callbackHosts: config.webhooks?.hosts });
  const mcp = lazyMcpEndpoint({ asks, version: "1", progressEveryMs: config.mcpProgressMs });
  const channel = createTextChannel({ db, sessions, questions, runs, textCommands, events, postMessage: turns.postMessage, chatCommands: functions.chatCommands });
  // Every surface but the tabs' sockets (which attach when the socket server starts), before
  // anything settles at start-up: a restart's recovery and the expiry timers close questions too.
  const answering = { db, questions, people: access.peopleCache, seeQuestion: access.visibility.question };
  const slack = config.slack ? createSlack(config.slack, answering) : null;
  const email = config.email ? await openEmail(config.email, answering) : null;
  surfaces.attachAll({ push: pushOutbox.surface, slack: slack?.surface ?? null, email: email?.surface ?? null, webhooks: webhooks.surface, asks: asks.surface, channel: channel.surface });

  await expiryTimers?.start(questions);

  // A tab may join a session on a node other than the one whose run streams a reply in it.
  cluster.answerWith((q) => (q.type === "session.streams" ? sessions.openStreams(q.sessionId) : null));
  sessions.streamsFrom(async (sessionId) => (await cluster.ask({ type: "session.streams", sessionId })).flat());
  const pendingCounts = publishPendingCounts({ events, sessions });

  const resume = createResume({ commands, runs });
  const inbox = createInbox({ commands, questions, resume, stop: runs.stopRun, pollMs: config.inboxPollMs });
  const recovered = await recoverAndStart({ sessions, runs, inbox, pool, outboxes: [webhooks, pushOutbox, ...(slack ? [slack.outbox] : []), ...(email ? [email.outbox] : [])] });

  return {
    db,
    metrics,
    cluster,
    events,
    surfaces,
    commands,
    sessions,
    members,
    questions,
    runs,
    asks,
    mcp,
    webhooks,
    push: { publicKey: vapid.publicKey, devices: pushDevices, outbox: pushOutbox },
    slack,
    email,
    personEmails: createPersonEmails(db),
    permissions,
    audit: createAuditService(db),
    pool,
    access,
    held,
    signOutEverywhere,
    revokeApiToken,
    people,
    origin: config.origin,
    rotateServerToken: createRotateServerToken({ shared: leases !== undefined, access, events, signOutEverywhere }),
    recovered,
    resume,
    applyInbox: inbox.applyOnce,

    node: () => ({ id: cluster.nodeId, leasedRuns: leases?.held() ?? null, expiryTimers: expiryTimers ? expiryTimers.holding() : true }),
    listFunctions: functions.info,
    postMessage: turns.postMessage,
    retryTurn: turns.retryTurn,
    channelText: channel.receive,
    channelOutbox: channel.outbox,
    deleteSession: createDeleteSession({ sessions, members, runs, questions, events }),

    async close(): Promise<void> {
      held.close();
      surfaces.close();
      await mcp.close();
      await inbox.stop();
      await webhooks.stop();
      await pushOutbox.stop();
      await slack?.outbox.stop();
      await email?.outbox.stop();
      email?.close();
      runs.detachAll();
      questions.dispose();
      pendingCounts.stop();
      await expiryTimers?.stop();
      await pool.shutdown();
      await runs.handOver();
      await db.close();
    },
  };
}

/** Parley on its real parts (what server.ts runs): with the worker pool itself. */
export type OpenedParley = Awaited<ReturnType<typeof openParley>>;
