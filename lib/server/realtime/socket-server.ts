import type { Server as HttpServer } from "node:http";
import { Server, type Socket } from "socket.io";
import { AppError, parseOrThrow } from "../../protocol/errors";
import { QuestionRejectCommandSchema, QuestionReplyCommandSchema } from "../../protocol/commands";
import { DevicePresenceSchema } from "../../protocol/push";
import type { ClusterMessage, ClusterQuery, CrossNodeStatus } from "../../protocol/cluster";
import type { ClusterTransport } from "../cluster/cluster-link";
import type { RedisBus } from "./redis-bus";
import { ownerRoom, SessionJoinCommandSchema, SOCKET_PATH, sessionRoom, SocketAuthSchema, type Ack, type ClientToServerEvents, type ServerToClientEvents } from "../../protocol/socket";
import type { Parley } from "../app";
import { subscribe, type DomainHandlers } from "../events";
import type { Principal } from "../access/authenticator";
import { clientAddress } from "../access/client-address";
import type { OriginPolicy } from "../access/origin-policy";
import { log } from "../log";
import { answeringAs } from "../access/answering-as";

interface SocketData {
  principal: Principal;
  /** Where its answers are recorded as given from: a browser tab, or a terminal client. */
  surface: "socket" | "terminal";
}
/** Between nodes, through the Redis adapter's serverSideEmit. */
interface ServerSideEvents {
  "parley:cluster": (message: ClusterMessage) => void;
  "parley:ask": (query: ClusterQuery, answer: (reply: unknown) => void) => void;
}
type ParleySocket = Socket<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>;

export interface RealtimeOptions {
  /** The Host and Origin names this server answers (the same policy as REST). */
  origins: OriginPolicy;
  /** How often sockets are checked against revocations this node was not told about (the CLI wrote the database with no server running, Redis was away). */
  revocationCheckMs?: number;
  /** REDIS_URL's bus (connect-redis-bus.ts): tabs on every node hear `io.to(room)`, and the nodes talk over the cluster bus. Without it, one node. */
  bus?: RedisBus;
}

/**
 * Runs a command handler and always answers its ack: a result or a typed error. Socket.IO hands
 * the ack over last, so it is found there, not by position: a command sent without a payload, or
 * with more than one, is refused through its ack instead of being left unanswered.
 */
function command<T>(args: unknown[], work: (payload: unknown) => Promise<T>): void {
  const last = args.at(-1);
  const ack = typeof last === "function" ? (last as (res: Ack<T>) => void) : undefined;
  const payloads = ack ? args.slice(0, -1) : args;
  const reply = ack ?? (() => {});
  const result = payloads.length === 1 ? work(payloads[0]) : Promise.reject(new AppError("bad_request", `Invalid payload: a command takes one payload object, not ${payloads.length} arguments.`));
  result.then(
    (data) => reply({ ok: true, data }),
    (err) => {
      const error = AppError.from(err);
      if (error.code === "internal") log.error({ err }, "[realtime] command failed");
      reply({ ok: false, error: error.toWire() });
    },
  );
}

/** Socket.IO transport: validates commands, calls the same services as REST, broadcasts domain events. */
export function attachRealtime(httpServer: HttpServer, parley: Parley, { origins, revocationCheckMs = 10_000, bus }: RealtimeOptions) {
  const { authenticator, visibility, rateLimits, apiTokens } = parley.access;
  // Several nodes: one allowance per client whichever node it reaches.
  if (bus) rateLimits.shareThrough(bus.commands, `${bus.key}:rl`);
  const io = new Server<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>(httpServer, {
    path: SOCKET_PATH,
    serveClient: false,
    maxHttpBufferSize: 2_000_000,
    // The handshake passes the checks REST makes: the Host (DNS rebinding), the Origin of a browser, and a rate limit per client address (through trusted proxies only).
    allowRequest: (req, callback) => {
      const origin = req.headers.origin;
      if (!origins.hostAllowed(req.headers.host)) return callback("Host not allowed", false);
      if (origin !== undefined && !origins.originAllowed(origin)) return callback("Origin not allowed", false);
      rateLimits.take("handshakes", clientAddress(req, parley.access.proxyTrust)).then(
        () => callback(null, true),
        () => callback("Too many connections; try again shortly", false),
      );
    },
    ...(bus ? { adapter: bus.adapter } : {}),
  });

  // The cluster bus: messages leave through the adapter's serverSideEmit (never back to this node) and arrive here.
  const crossNode = (): CrossNodeStatus => (bus ? bus.status() : "single");
  const transport: ClusterTransport = {
    send: (message) => io.serverSideEmit("parley:cluster", message),
    status: crossNode,
    // A node that does not answer within the adapter's request timeout is left out (its answers so far are kept).
    ask: (query) => io.serverSideEmitWithAck("parley:ask", query).catch((err: { responses?: unknown[] }) => err.responses ?? []),
  };
  parley.cluster.attach(transport);
  io.on("parley:cluster", (message) => parley.cluster.receive(message));
  io.on("parley:ask", (query, answer) => typeof answer === "function" && answer(parley.cluster.answer(query)));
  // This node's tabs (only its own: the others' nodes say their own) learn when it loses or finds the others.
  const offStatus = bus?.onStatus((status) => io.local.emit("server.status", { crossNode: status }));

  // A browser tab signs in with its session cookie; a script or terminal client with auth: { token }.
  io.use((socket, next) => {
    const auth = SocketAuthSchema.safeParse(socket.handshake.auth ?? {});
    const bearer = auth.success ? (auth.data.token ?? null) : null;
    authenticator.authenticate({ bearer, cookie: socket.handshake.headers.cookie, client: clientAddress(socket.request, parley.access.proxyTrust) }).then(
      (principal) => {
        if (!principal) return next(Object.assign(new Error("unauthorized"), { data: { code: "unauthorized", message: "Sign in first (a session cookie, or auth: { token })." } }));
        if (principal.scope === "ask")
          return next(Object.assign(new Error("forbidden"), { data: { code: "forbidden", message: "This API token may only ask (scope ask): it cannot open the chat's socket." } }));
        socket.data.principal = principal;
        socket.data.surface = auth.success && auth.data.surface === "terminal" ? "terminal" : "socket";
        void socket.join(ownerRoom(principal.ownerId));
        next();
      },
      (err) => {
        const error = AppError.from(err);
        // `rate_limited`: this address sent too many wrong tokens; the client reads when to try again.
        next(error.code === "internal" ? new Error("unavailable") : Object.assign(new Error(error.code), { data: error.toWire() }));
      },
    );
  });

  io.on("connection", (socket: ParleySocket) => {
    const { ownerId, credential } = socket.data.principal;
    const by = socket.data.surface;
    socket.emit("server.status", { crossNode: crossNode() });
    // The arguments as sent, whatever the event's declared signature: `command` finds the payload and the ack.
    const on = (event: keyof ClientToServerEvents, work: (payload: unknown) => Promise<unknown>) => socket.on(event, (...args: unknown[]) => command(args, work));

    on("session.join", async (payload) => {
      const { sessionId } = parseOrThrow(SessionJoinCommandSchema, payload);
      const role = await visibility.session(ownerId, sessionId);
      // Join before reading the snapshot: an event in between arrives twice, never zero times.
      await socket.join(sessionRoom(sessionId));
      // A member removed since the check above had their sockets leave before this one joined: check again, now in the room.
      if (role === "member") {
        try {
          await visibility.session(ownerId, sessionId);
        } catch (err) {
          await socket.leave(sessionRoom(sessionId));
          throw err;
        }
      }
      return parley.sessions.getSnapshot({ id: sessionId });
    });

    on("session.leave", async (payload) => {
      const { sessionId } = parseOrThrow(SessionJoinCommandSchema, payload);
      await socket.leave(sessionRoom(sessionId));
      return null;
    });

    on("question.reply", async (payload) => {
      const { id, value, input, until, commandId, digest } = parseOrThrow(QuestionReplyCommandSchema, payload);
      await rateLimits.take("replies", credential);
      // The reply checks who may see the question in its own transaction.
      return parley.questions.reply({ id, value, input, until, commandId, digest, by, ...answeringAs(socket.data.principal) });
    });

    // The push subscription and session this tab said it shows, so its going away clears what it set (and no more).
    let presence: { subscriptionId: string; sessionId: string } | null = null;
    const leavePresence = async () => {
      const left = presence;
      presence = null;
      if (left) await parley.push.devices.absent(left.subscriptionId, left.sessionId);
    };
    on("device.presence", async (payload) => {
      const { subscriptionId, sessionId } = parseOrThrow(DevicePresenceSchema, payload);
      if (presence && (presence.subscriptionId !== subscriptionId || presence.sessionId !== sessionId)) await leavePresence();
      if (subscriptionId === null) return null;
      if (sessionId !== null) await visibility.session(ownerId, sessionId);
      if (!(await parley.push.devices.present(ownerId, { subscriptionId, sessionId }))) {
        throw new AppError("not_found:push_subscription", "No push subscription of yours has that id: subscribe this browser again.");
      }
      presence = sessionId === null ? null : { subscriptionId, sessionId };
      return null;
    });
    socket.on("disconnect", () => void leavePresence().catch((err) => log.error({ err }, "[realtime] could not clear a tab's presence")));

    on("question.reject", async (payload) => {
      const { id, message, commandId, digest } = parseOrThrow(QuestionRejectCommandSchema, payload);
      await rateLimits.take("replies", credential);
      return parley.questions.reject({ id, message, commandId, digest, by, ...answeringAs(socket.data.principal) });
    });
  });

  const toRoom = (sessionId: string) => io.to(sessionRoom(sessionId));
  const toOwner = (ownerId: string) => io.to(ownerRoom(ownerId));
  /** Every socket of these people (a socket of two of them hears it once). */
  const toPeople = (people: string[]) => io.to(people.map(ownerRoom));
  // Which room hears each domain event; the revocations below drop sockets instead.
  const relays: DomainHandlers = {
    "question.asked": (q) => toRoom(q.sessionId).emit("question.asked", q),
    "question.updated": (q) => toRoom(q.sessionId).emit("question.updated", q),
    // The seed's contract has two retractions: a person's answer, and every other end (its status says which).
    "question.closed": (q) => toRoom(q.sessionId).emit(q.status === "answered" ? "question.replied" : "question.rejected", q),
    "message.created": (m) => toRoom(m.sessionId).emit("message.created", m),
    "message.delta": (d) => toRoom(d.sessionId).emit("message.delta", d),
    "run.updated": (r) => toRoom(r.sessionId).emit("run.updated", r),
    "session.updated": (s, people) => toPeople(people).emit("session.updated", s),
    "session.deleted": ({ id, people }) => {
      toPeople(people).emit("session.deleted", { id });
      // Nothing more is said in its room.
      io.in(sessionRoom(id)).socketsLeave(sessionRoom(id));
    },
    // On every node (the adapter's rooms): the person's tabs showing it hear nothing more of it.
    "session.left": ({ id, user }) => {
      io.in(ownerRoom(user)).socketsLeave(sessionRoom(id));
      toOwner(user).emit("session.left", { id });
    },
    "rules.updated": ({ sessionId }) => toRoom(sessionId).emit("rules.updated", { sessionId }),
    "person.renamed": (renamed, people) => toPeople(people).emit("person.renamed", renamed),
  };

  // Revocations this node was not told about: sockets of a revoked API token, or of a cookie refused
  // since (sign out everywhere), are disconnected (their own commands would be refused by nothing
  // else). This node's sockets only: each node checks its own (and a lost Redis does not stop it).
  const dropRevokedTokens = async () => {
    const byToken = (await io.local.fetchSockets()).filter((s) => s.data.principal?.apiTokenId);
    if (byToken.length === 0) return;
    const live = await apiTokens.liveIds([...new Set(byToken.map((s) => s.data.principal.apiTokenId!))]);
    for (const s of byToken) if (!live.has(s.data.principal.apiTokenId!)) s.disconnect(true);
  };
  const dropRevokedCookies = async () => {
    for (const s of await io.local.fetchSockets()) {
      if (s.data.principal?.via !== "cookie") continue;
      // The cookie it signed in with, checked again (against the epoch, cached for a second at most).
      if (!(await authenticator.authenticate({ cookie: s.handshake.headers.cookie }))) s.disconnect(true);
    }
  };
  const checkRevocations = (what: string, check: () => Promise<void>) => check().catch((err) => log.error({ err }, `[realtime] ${what} check failed`));
  const revocations = setInterval(() => {
    void checkRevocations("API token revocation", dropRevokedTokens);
    // A sign-out everywhere this node was not told about (the CLI wrote the database, Redis was away).
    void checkRevocations("cookie revocation", dropRevokedCookies);
  }, revocationCheckMs);
  revocations.unref();
  const dropSockets = (which: (principal: ParleySocket["data"]["principal"]) => boolean) => {
    for (const s of io.sockets.sockets.values()) if (s.data.principal && which(s.data.principal)) s.disconnect(true);
  };
  const unsubscribe = subscribe(
    parley.events,
    {
      ...relays,
      "cookies.revoked": () => void checkRevocations("cookie revocation", dropRevokedCookies),
      // Synchronous, so a revocation has dropped this node's sockets of the token by the time it answers.
      "api-token.revoked": ({ id }) => dropSockets((p) => p.apiTokenId === id),
      "server-token.rotated": () => dropSockets((p) => p.via === "server_token"),
    },
    // The tabs first: the push and webhook outboxes and the session announcements subscribed before.
    { first: true },
  );

  return {
    io,
    /** Whether this node hears the others (`single` without Redis). */
    crossNode,
    async close() {
      offStatus?.();
      parley.cluster.attach(null);
      clearInterval(revocations);
      unsubscribe();
      await io.close();
      await bus?.close();
    },
  };
}
