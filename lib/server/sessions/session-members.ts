import { LOCAL_OWNER } from "../../protocol/access";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { SessionMembers } from "../../protocol/teams";
import type { Db } from "../store/db/client";
import { createMemberStore } from "../store/members/member-store";
import { createPeopleStore } from "../store/people/people-store";
import { createDisplayNames } from "../people/display-names";
import type { DomainEvents } from "../events";
import type { SessionService } from "./session-service";

/**
 * Sharing a session: its owner (or an administrator) adds people by name and removes them; a
 * member may leave. Each command is idempotent and answers the session's people as they now are.
 * Whoever it changes for hears it at once: the session appears in a new member's lists, and
 * disappears from a removed one's (whose tabs leave its room).
 */
export function createSessionMembers({ db, events, sessions }: { db: Db; events: DomainEvents; sessions: Pick<SessionService, "publish"> }) {
  const store = createMemberStore(db.exec);
  const names = createDisplayNames(createPeopleStore(db.exec));

  /** Its owner first, then its members, oldest first. */
  async function list(sessionId: string): Promise<SessionMembers> {
    const people = await store.people(sessionId);
    if (!people) throw new AppError("not_found:session", `No session with id ${quoteId(sessionId)}.`);
    return { members: people };
  }

  return {
    list,

    /** Shares it with `user`, a person by their name or the name they are shown by (`not_found:person` else); its owner, or a member already, changes nothing. */
    async add({ sessionId, user: named, by }: { sessionId: string; user: string; by: string }): Promise<SessionMembers> {
      const user = (await names.resolve(named)) ?? named;
      const before = await list(sessionId);
      if (before.members.some((m) => m.user === user)) return before;
      if (user !== LOCAL_OWNER && !(await store.isPerson(user))) throw new AppError("not_found:person", `No person named ${quoteId(user)}: add them first (parley user add ${user}).`);
      // Every tab of its people hears it, the new member's too: the session appears in their list.
      if (await store.add({ sessionId, userId: user, addedBy: by, at: new Date() })) await sessions.publish(sessionId);
      return list(sessionId);
    },

    /** Stops sharing it with `user` (leaving, when they ask it themselves); someone who is no member changes nothing. */
    async remove({ sessionId, user }: { sessionId: string; user: string }): Promise<SessionMembers> {
      if (await store.remove({ sessionId, userId: user })) {
        events.emit("session.left", { id: sessionId, user });
        await sessions.publish(sessionId);
      }
      return list(sessionId);
    },

    /** Its members' names, whatever its state (a delete tells them). */
    names: store.names,

    /** Everyone who shares a live chat with `userId`: whose names their tabs may show. */
    sharingWith: store.sharingWith,
  };
}

export type SessionMembersService = ReturnType<typeof createSessionMembers>;
