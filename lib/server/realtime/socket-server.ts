import type { Server as HttpServer } from "node:http";
import { Server } from "socket.io";
import { AppError } from "../../protocol/errors";
import type { CrossNodeStatus } from "../../protocol/cluster";
import type { ClusterTransport } from "../cluster/cluster-link";
import type { RedisBus } from "./redis-bus";
import { ownerRoom, SOCKET_PATH, SocketAuthSchema, type ClientToServerEvents, type ServerToClientEvents } from "../../protocol/socket";
import type { Parley } from "../app";
import { subscribe } from "../events";
import { clientAddress } from "../access/client-address";
import type { OriginPolicy } from "../access/origin-policy";
import type { ParleyIo, ParleySocket, ServerSideEvents, SocketData } from "./socket-types";
import { serveCommands } from "./socket-commands";
import { domainRelays, socketSurface } from "./domain-relays";
import { watchRevocations } from "./socket-revocations";

export interface RealtimeOptions {
  /** The Host and Origin names this server answers (the same policy as REST). */
  origins: OriginPolicy;
  /** How often sockets are checked against revocations this node was not told about (the CLI wrote the database with no server running, Redis was away). */
  revocationCheckMs?: number;
  /** REDIS_URL's bus (connect-redis-bus.ts): tabs on every node hear `io.to(room)`, and the nodes talk over the cluster bus. Without it, one node. */
  bus?: RedisBus;
}

/** The realtime transport attached to the HTTP server. */
export interface Realtime {
  io: ParleyIo;
  /** Whether this node hears the others (`single` without Redis). */
  crossNode(): CrossNodeStatus;
  close(): Promise<void>;
}

/** Socket.IO transport: validates commands, calls the same services as REST, broadcasts domain events. */
export function attachRealtime(httpServer: HttpServer, parley: Parley, { origins, revocationCheckMs = 10_000, bus }: RealtimeOptions): Realtime {
  const { authenticator, rateLimits } = parley.access;
  // Several nodes: one allowance per client whichever node it reaches.
  if (bus) rateLimits.shareThrough(bus.commands, `${bus.key}:rl`);
  const io: ParleyIo = new Server<ClientToServerEvents, ServerToClientEvents, ServerSideEvents, SocketData>(httpServer, {
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
    socket.emit("server.status", { crossNode: crossNode() });
    serveCommands(socket, parley);
  });

  const revocations = watchRevocations(io, parley.access, revocationCheckMs);
  const unsubscribe = subscribe(
    parley.events,
    { ...domainRelays(io), ...revocations.handlers },
    // The tabs first: the session announcements subscribed before.
    { first: true },
  );
  const detachSurface = parley.surfaces.attach("sockets", socketSurface(io));

  return {
    io,
    /** Whether this node hears the others (`single` without Redis). */
    crossNode,
    async close() {
      offStatus?.();
      parley.cluster.attach(null);
      revocations.stop();
      unsubscribe();
      detachSurface();
      await io.close();
      await bus?.close();
    },
  };
}
