import { EventEmitter } from "node:events";
import type { Message, MessageDelta, Run, Session } from "../protocol/entities";
import type { Question } from "../protocol/question";
import type { PersonRenamed } from "../protocol/display-names";

/** Facts the domain services publish; transports (Socket.IO) and the worker bridge subscribe. */
export interface DomainEventMap {
  "question.asked": [Question];
  /** A question left `pending`: answered, declined, timed out, cancelled or expired. */
  "question.closed": [Question];
  /** A pending question changed: a vote, an escalation. */
  "question.updated": [Question];
  /** An escalation step let more people answer a pending question: they are told. */
  "question.escalated": [Question, string[]];
  "message.created": [Message];
  /** More text of a streaming agent reply. */
  "message.delta": [MessageDelta];
  "run.updated": [Run];
  /** How a session is now, and its people (its owner and members): every tab of theirs hears it. */
  "session.updated": [session: Session, people: string[]];
  /** A session was deleted (its runs stopped, its questions retracted first): its people's tabs drop it. */
  "session.deleted": [{ id: string; people: string[] }];
  /** A session is no longer shared with `user`: their tabs drop it and leave its room. */
  "session.left": [{ id: string; user: string }];
  /** A person was given a new display name: the tabs of `people` (those who may read it), on every node, name them so. */
  "person.renamed": [PersonRenamed, string[]];
  /** A session's permission rules changed (added, removed): its tabs refresh their settings panel. */
  "rules.updated": [{ sessionId: string }];
  /** Every browser was signed out, here or on another node: sockets signed in with older cookies are dropped. */
  "cookies.revoked": [];
  /** An API token was revoked, here or on another node: sockets signed in with it are dropped (at once: the handlers are synchronous). */
  "api-token.revoked": [{ id: string }];
  /** This node's server token was rotated: sockets signed in with the old one are dropped. */
  "server-token.rotated": [];
}

export class DomainEvents extends EventEmitter<DomainEventMap> {
  constructor() {
    super();
    // Many sockets and services subscribe; the default of 10 would warn on a busy server.
    this.setMaxListeners(0);
  }
}

/** What a subscriber does with each event it takes (events it leaves out it does not hear). */
export type DomainHandlers = { [K in keyof DomainEventMap]?: (...args: DomainEventMap[K]) => void };

/**
 * Subscribes every handler of a table at once; the function returned unsubscribes them all.
 * `first`: ahead of the handlers already there (the tabs hear a fact before outboxes and
 * announcements begin their own work on it).
 */
export function subscribe(events: DomainEvents, handlers: DomainHandlers, { first = false }: { first?: boolean } = {}): () => void {
  const entries = Object.entries(handlers) as Array<[keyof DomainEventMap, (...args: unknown[]) => void]>;
  for (const [event, handler] of entries) {
    if (first) events.prependListener(event, handler);
    else events.on(event, handler);
  }
  return () => {
    for (const [event, handler] of entries) events.off(event, handler);
  };
}
