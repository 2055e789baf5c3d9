import { ownerRoom, sessionRoom } from "../../protocol/socket";
import type { DomainHandlers } from "../events";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import type { ParleyIo } from "./socket-types";

/** The tabs' and terminals' surface: a session's room sees its questions come and go. */
export function socketSurface(io: ParleyIo): QuestionSurface {
  const toRoom = (sessionId: string) => io.to(sessionRoom(sessionId));
  return {
    deliver: (q) => toRoom(q.sessionId).emit("question.asked", q),
    update: (q) => toRoom(q.sessionId).emit("question.updated", q),
    // The seed's contract has two retractions: a person's answer, and every other end (its status says which).
    retract: (q) => toRoom(q.sessionId).emit(q.status === "answered" ? "question.replied" : "question.rejected", q),
  };
}

/** Which room hears each other domain event; revocations drop sockets instead (socket-revocations.ts). */
export function domainRelays(io: ParleyIo): DomainHandlers {
  const toRoom = (sessionId: string) => io.to(sessionRoom(sessionId));
  const toOwner = (ownerId: string) => io.to(ownerRoom(ownerId));
  /** Every socket of these people (a socket of two of them hears it once). */
  const toPeople = (people: string[]) => io.to(people.map(ownerRoom));
  return {
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
}
