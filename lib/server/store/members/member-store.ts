import type { SessionMember } from "../../../protocol/teams";
import type { SqlExecutor } from "../sql-executor";
import * as M from "./member-statements";

const iso = (at: Date) => at.toISOString();

/** Who a session is shared with (SessionMember): a member goes with their session. */
export function createMemberStore(exec: SqlExecutor) {
  return {
    /** Shares the session with `userId`: true when this added them, false when it changed nothing (a member already, its owner, or no live session). */
    add: async (p: { sessionId: string; userId: string; addedBy: string; at: Date }): Promise<boolean> => (await exec.changes(M.addMember, p)) > 0,

    /** Stops sharing it with `userId`: true when they were a member. */
    remove: async (p: { sessionId: string; userId: string }): Promise<boolean> => (await exec.changes(M.removeMember, p)) > 0,

    /** Its owner first (role `owner`, since the session began), then its members, oldest first; null for no live session. */
    async people(sessionId: string): Promise<SessionMember[] | null> {
      const rows = await exec.rows(M.peopleOf, { sessionId });
      if (rows.length === 0) return null;
      const owner: SessionMember = { user: rows[0]!.ownerId, role: "owner", addedAt: iso(rows[0]!.createdAt) };
      return [owner, ...rows.flatMap((r): SessionMember[] => (r.userId === null || r.addedAt === null ? [] : [{ user: r.userId, role: "member", addedAt: iso(r.addedAt) }]))];
    },

    /** Its members' names, oldest first, whatever the session's state. */
    names: async (sessionId: string): Promise<string[]> => (await exec.rows(M.memberNames, { sessionId })).map((r) => r.userId),

    /** Everyone who shares a live chat with `userId` (its owner or a member beside them), not `userId`. */
    async sharingWith(userId: string): Promise<Set<string>> {
      const people = new Set((await exec.rows(M.sharingWith, { userId })).flatMap((r) => [r.ownerId, r.userId]));
      people.delete(userId);
      return people;
    },

    isPerson: async (name: string): Promise<boolean> => (await exec.rows(M.personNamed, { name })).length > 0,
  };
}

export type MemberStore = ReturnType<typeof createMemberStore>;
