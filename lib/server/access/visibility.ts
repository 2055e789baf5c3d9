import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { Db } from "../store/db/client";
import { RunStarterSchema } from "../../protocol/entities";
import { createAccessStore, type AccessRead } from "../store/access/access-store";

/** How a person sees a session they may see: they own it, or it is shared with them. */
export type SessionRole = "owner" | "member";

/** A boolean read from an expression (EXISTS): SQLite gives 0 or 1. */
const truthy = (value: unknown): boolean => value === true || value === 1;

/**
 * What a person may see: what they own, and the sessions shared with them (with their questions
 * and runs). Anything else answers exactly as an unknown id does (404 with the same message), so
 * ids cannot be probed. A session being deleted, and everything in it, is not found from the
 * moment its delete begins. Owners never change; members do, so a member's check holds only as
 * long as their membership (the socket's join checks again after joining).
 */
export function createVisibility(db: Db) {
  const store = createAccessStore(db.exec);
  /** A check before an action, one read: what `access` reads must be `viewer`'s or shared with them, in a session whose delete has not begun. */
  const check =
    (access: AccessRead, code: "session" | "question" | "run") =>
    async (viewer: string, id: string): Promise<{ ownerId: string; role: SessionRole }> => {
      const found = await access({ id, viewer });
      const role: SessionRole | null = !found || found.deletedAt !== null ? null : found.ownerId === viewer ? "owner" : truthy(found.member) ? "member" : null;
      if (role === null) throw new AppError(`not_found:${code}`, `No ${code} with id ${quoteId(id)}.`);
      return { ownerId: found!.ownerId, role };
    };
  const seeSession = check(store.session, "session");
  const seeQuestion = check(store.question, "question");
  const seeRun = check(store.run, "run");

  /** What a token that may only ask sees: the questions its own asks put (its id on their run's starter), answered as an unknown id otherwise. */
  async function askedBy(ownerId: string, credential: string, id: string): Promise<void> {
    const found = await store.questionAskedBy(id);
    const starter = found?.startedBy ? RunStarterSchema.safeParse(JSON.parse(found.startedBy)) : null;
    const asker = starter?.success && starter.data.tokenId ? `api:${starter.data.tokenId}` : null;
    if (!found || found.ownerId !== ownerId || found.deletedAt !== null || asker !== credential) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
  }

  return {
    /** How `viewer` sees the session (404 when they may not). */
    session: async (viewer: string, id: string): Promise<SessionRole> => (await seeSession(viewer, id)).role,
    /** The session's owner, as `session` checks it (owners never change: a run started in it can be given it). */
    sessionOwner: async (viewer: string, id: string): Promise<{ ownerId: string }> => ({ ownerId: (await seeSession(viewer, id)).ownerId }),
    question: async (viewer: string, id: string): Promise<void> => void (await seeQuestion(viewer, id)),
    run: async (viewer: string, id: string): Promise<void> => void (await seeRun(viewer, id)),
    askedBy,
    /**
     * A change only the session's owner, or an administrator who sees it, may make (`action`: "rename this chat"):
     * 404 for someone who does not see it, 403 `forbidden` for a member.
     */
    async manage(who: { ownerId: string; admin: boolean }, id: string, action: string): Promise<SessionRole> {
      const { ownerId, role } = await seeSession(who.ownerId, id);
      if (role !== "owner" && !who.admin) throw new AppError("forbidden", `Only this chat's owner (${ownerId}) or an administrator may ${action}.`);
      return role;
    },
  };
}

export type Visibility = ReturnType<typeof createVisibility>;
