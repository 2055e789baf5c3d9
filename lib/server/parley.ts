import type { AgentFunctionInfo } from "../protocol/entities";
import type { Db } from "./store/db/client";
import type { Metrics } from "./metrics";
import type { ClusterLink } from "./cluster/cluster-link";
import type { DomainEvents } from "./events";
import type { QuestionSurfaces } from "./surfaces/question-surfaces";
import type { Slack } from "./slack/slack";
import type { Email } from "./email/email";
import type { PersonEmails } from "./email/person-emails";
import type { CommandService } from "./ledger/command-ledger";
import type { Inbox } from "./ledger/inbox";
import type { createResume } from "./ledger/resume";
import type { SessionService } from "./sessions/session-service";
import type { SessionMembersService } from "./sessions/session-members";
import type { ChatTurns } from "./sessions/chat-turns";
import type { DeleteSession } from "./sessions/delete-session";
import type { QuestionService } from "./questions/question-service";
import type { RunService } from "./runs/run-service";
import type { AskService } from "./asks/ask-service";
import type { McpEndpoint } from "./mcp/mcp-endpoint";
import type { WebhookOutbox } from "./webhooks/webhook-outbox";
import type { PushOutbox } from "./push/push-outbox";
import type { PushDevicesService } from "./push/push-devices";
import type { PermissionService } from "./permissions/permission-service";
import type { AuditService } from "./audit/audit-service";
import type { WorkerPoolPort } from "./workers/worker-port";
import type { Access } from "./access/access";
import type { HeldRequests } from "./access/held-requests";
import type { createSignOutEverywhere } from "./access/sign-out-everywhere";
import type { createRevokeApiToken } from "./access/revoke-api-token";
import type { People } from "./people/people-service";
import type { createTextChannel } from "./commands/text-channel";
import type { Recovered } from "./start-up";

type TextChannel = ReturnType<typeof createTextChannel>;

/** Parley's domain as the transports (REST route handlers, Socket.IO, the CLI's server paths) see it. */
export interface Parley {
  db: Db;
  metrics: Metrics;
  cluster: ClusterLink;
  events: DomainEvents;
  /** Where waiting questions are shown and taken back: the tabs' sockets attach to it. */
  surfaces: QuestionSurfaces;
  commands: CommandService;
  sessions: SessionService;
  /** Who a session is shared with: its owner and its members. */
  members: SessionMembersService;
  questions: QuestionService;
  runs: RunService;
  /** Questions asked from outside Parley (the ask API): runs of the built-in `ask` function. */
  asks: AskService;
  /** Parley's MCP server (`/mcp`): the ask tools for agents outside Parley. */
  mcp: Pick<McpEndpoint, "handle" | "close" | "openSessions">;
  /** Asks' callbacks: the outbox of their signed deliveries. */
  webhooks: WebhookOutbox;
  /** Web Push: the VAPID public key browsers subscribe with, a person's devices, and the outbox of pushes. */
  push: { publicKey: string; devices: PushDevicesService; outbox: PushOutbox };
  /** Slack, where the server is set up for it (PARLEY_SLACK_*); null otherwise. */
  slack: Slack | null;
  /** Email, where the server is set up for it (PARLEY_SMTP_URL); null otherwise. */
  email: Email | null;
  /** People's email addresses (set whether or not this server sends mail). */
  personEmails: PersonEmails;
  permissions: PermissionService;
  /** Who settled each question, from where, or which rule did. */
  audit: AuditService;
  pool: WorkerPoolPort;
  access: Access;
  /** Requests held open for a person (event streams, `?wait=` reads, waiting MCP calls): they end when the credential or membership does. */
  held: HeldRequests;
  /** Refuses every browser session cookie issued before now, on every node, and drops their sockets. */
  signOutEverywhere: ReturnType<typeof createSignOutEverywhere>;
  /** Refuses an API token from now on and drops its sockets (this node's before it answers, the others' over the bus). */
  revokeApiToken: ReturnType<typeof createRevokeApiToken>;
  /** People (teams): added with a one-time sign-in link; a removal refuses their credentials and drops their sockets on every node. */
  people: People;
  /** The origin of the sign-in links this server hands out, when it knows where people reach it. */
  origin?: () => string;
  /**
   * A new server token (kept in the token file): the old one is refused at once, sockets signed
   * in with it are dropped, and so are browser cookies (they were signed in with the old token).
   * One node alone only: the other nodes of a database would keep the old token.
   */
  rotateServerToken(): Promise<{ rotatedAt: string }>;
  /** What start-up recovered: runs resumed and parked, pending questions, the CLI's commands applied. */
  recovered: Recovered;
  resume: ReturnType<typeof createResume>;
  /** Applies commands that the CLI recorded in the database, in the order they were recorded. */
  applyInbox: Inbox["applyOnce"];
  /** This node among several: its id, how many runs it holds leases on, and whether it keeps the expiry timers (a node alone always does). */
  node(): { id: string; leasedRuns: number | null; expiryTimers: boolean };
  listFunctions(): AgentFunctionInfo[];
  postMessage: ChatTurns["postMessage"];
  retryTurn: ChatTurns["retryTurn"];
  channelText: TextChannel["receive"];
  channelOutbox: TextChannel["outbox"];
  /** Deletes a chat, its runs stopped and its questions cancelled first. */
  deleteSession: DeleteSession;
  close(): Promise<void>;
}
