import type { IncomingMessage, Server as HttpServer } from "node:http";
import { Server, type Socket } from "socket.io";
import { AppError, parseOrThrow } from "../../protocol/errors";
import { QuestionRejectCommandSchema, QuestionReplyCommandSchema } from "../../protocol/commands";
import type { Question } from "../../protocol/question";
import {
  SessionJoinCommandSchema,
  SOCKET_PATH,
  sessionRoom,
  type Ack,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from "../../protocol/socket";
import type { Parley } from "../app";

type ParleySocket = Socket<ClientToServerEvents, ServerToClientEvents>;

export interface RealtimeOptions {
  /** Origins allowed besides the app's own (the request's Host). */
  allowedOrigins?: string[];
}

/** Same-origin check for the handshake: a browser on another site may not open a socket. */
export function isAllowedOrigin(req: Pick<IncomingMessage, "headers">, allowed: string[] = []): boolean {
  const origin = req.headers.origin;
  if (!origin) return true; // not a browser (scripts, CLIs): nothing to forge
  if (allowed.includes(origin)) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/** Runs a command handler and always answers its ack: a result or a typed error. */
function command<T>(ack: unknown, work: () => Promise<T>): void {
  const reply = typeof ack === "function" ? (ack as (res: Ack<T>) => void) : () => {};
  work().then(
    (data) => reply({ ok: true, data }),
    (err) => {
      const error = AppError.from(err);
      if (error.code === "internal") console.error("[realtime] command failed", err);
      reply({ ok: false, error: error.toWire() });
    },
  );
}

/** Socket.IO transport: validates commands, calls the same services as REST, broadcasts domain events. */
export function attachRealtime(httpServer: HttpServer, parley: Parley, options: RealtimeOptions = {}) {
  const io = new Server<ClientToServerEvents, ServerToClientEvents>(httpServer, {
    path: SOCKET_PATH,
    serveClient: false,
    maxHttpBufferSize: 2_000_000,
    allowRequest: (req, callback) => {
      const ok = isAllowedOrigin(req, options.allowedOrigins);
      callback(ok ? null : "Origin not allowed", ok);
    },
  });

  io.on("connection", (socket: ParleySocket) => {
    socket.on("session.join", (payload, ack) =>
      command(ack, async () => {
        const { sessionId } = parseOrThrow(SessionJoinCommandSchema, payload);
        await parley.sessions.getSession({ id: sessionId });
        // Join before reading the snapshot: an event in between arrives twice, never zero times.
        await socket.join(sessionRoom(sessionId));
        return parley.sessions.getSnapshot({ id: sessionId });
      }),
    );

    socket.on("session.leave", (payload, ack) =>
      command(ack, async () => {
        const { sessionId } = parseOrThrow(SessionJoinCommandSchema, payload);
        await socket.leave(sessionRoom(sessionId));
        return null;
      }),
    );

    socket.on("question.reply", (payload, ack) =>
      command(ack, async () => {
        const { id, value, commandId, digest } = parseOrThrow(QuestionReplyCommandSchema, payload);
        return parley.questions.reply({ id, value, commandId, digest, by: "socket" });
      }),
    );

    socket.on("question.reject", (payload, ack) =>
      command(ack, async () => {
        const { id, message, commandId, digest } = parseOrThrow(QuestionRejectCommandSchema, payload);
        return parley.questions.reject({ id, message, commandId, digest, by: "socket" });
      }),
    );
  });

  const { events } = parley;
  const toRoom = (sessionId: string) => io.to(sessionRoom(sessionId));
  const onAsked = (q: Question) => toRoom(q.sessionId).emit("question.asked", q);
  const onClosed = (q: Question) => {
    // The seed's contract has two retractions: a person's answer, and every other end (its status says which).
    const event = q.status === "answered" ? "question.replied" : "question.rejected";
    toRoom(q.sessionId).emit(event, q);
  };
  const onMessage: Parameters<typeof events.on<"message.created">>[1] = (m) => toRoom(m.sessionId).emit("message.created", m);
  const onRun: Parameters<typeof events.on<"run.updated">>[1] = (r) => toRoom(r.sessionId).emit("run.updated", r);
  const onSession: Parameters<typeof events.on<"session.updated">>[1] = (s) => io.emit("session.updated", s);
  events.on("question.asked", onAsked);
  events.on("question.closed", onClosed);
  events.on("message.created", onMessage);
  events.on("run.updated", onRun);
  events.on("session.updated", onSession);

  return {
    io,
    async close() {
      events.off("question.asked", onAsked);
      events.off("question.closed", onClosed);
      events.off("message.created", onMessage);
      events.off("run.updated", onRun);
      events.off("session.updated", onSession);
      await io.close();
    },
  };
}
