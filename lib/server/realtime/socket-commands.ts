import { AppError, parseOrThrow } from "../../protocol/errors";
import { QuestionRejectCommandSchema, QuestionReplyCommandSchema } from "../../protocol/commands";
import { DevicePresenceSchema } from "../../protocol/push";
import { SessionJoinCommandSchema, sessionRoom, type Ack, type ClientToServerEvents } from "../../protocol/socket";
import type { Parley } from "../app";
import { answeringAs } from "../access/answering-as";
import { log } from "../log";
import type { ParleySocket } from "./socket-types";

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

type CommandOn = (event: keyof ClientToServerEvents, work: (payload: unknown) => Promise<unknown>) => void;

/** A socket's commands: it validates each and calls the same services as REST. */
export function serveCommands(socket: ParleySocket, parley: Parley): void {
  // The arguments as sent, whatever the event's declared signature: `command` finds the payload and the ack.
  const on: CommandOn = (event, work) => socket.on(event, (...args: unknown[]) => command(args, work));
  serveSessionRooms(socket, parley, on);
  serveAnswers(socket, parley, on);
  serveDevicePresence(socket, parley, on);
}

/** Joining a session's room (with its snapshot) and leaving it. */
function serveSessionRooms(socket: ParleySocket, parley: Parley, on: CommandOn): void {
  const { visibility } = parley.access;
  const { ownerId } = socket.data.principal;
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
}

/** A person's reply to a question, or their rejection of it. */
function serveAnswers(socket: ParleySocket, parley: Parley, on: CommandOn): void {
  const { rateLimits } = parley.access;
  const { credential } = socket.data.principal;
  const by = socket.data.surface;
  on("question.reply", async (payload) => {
    const { id, value, input, until, commandId, digest } = parseOrThrow(QuestionReplyCommandSchema, payload);
    await rateLimits.take("replies", credential);
    // The reply checks who may see the question in its own transaction.
    return parley.questions.reply({ id, value, input, until, commandId, digest, by, ...answeringAs(socket.data.principal) });
  });

  on("question.reject", async (payload) => {
    const { id, message, commandId, digest } = parseOrThrow(QuestionRejectCommandSchema, payload);
    await rateLimits.take("replies", credential);
    return parley.questions.reject({ id, message, commandId, digest, by, ...answeringAs(socket.data.principal) });
  });
}

/** The push subscription and session this tab said it shows, so its going away clears what it set (and no more). */
function serveDevicePresence(socket: ParleySocket, parley: Parley, on: CommandOn): void {
  const { visibility } = parley.access;
  const { ownerId } = socket.data.principal;
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
}
