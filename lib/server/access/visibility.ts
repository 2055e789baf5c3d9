import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { Db } from "../db/client";

/**
 * What an owner may see. An id of another owner answers exactly as an unknown id does (404 with
 * the same message), so ids cannot be probed. Owners never change, so a check before an action holds. A session being deleted, and
 * everything in it, is not found from the moment its delete begins.
 */
export function createVisibility(db: Db) {
  const hidden = (found: { ownerId: string; deletedAt?: Date | null } | null | undefined, ownerId: string) => !found || found.ownerId !== ownerId || (found.deletedAt ?? null) !== null;

  return {
    async session(ownerId: string, id: string): Promise<void> {
      const row = await db.chatSession.findUnique({ where: { id }, select: { ownerId: true, deletedAt: true } });
      if (hidden(row, ownerId)) throw new AppError("not_found:session", `No session with id ${quoteId(id)}.`);
    },
    async question(ownerId: string, id: string): Promise<void> {
      const row = await db.question.findUnique({ where: { id }, select: { session: { select: { ownerId: true, deletedAt: true } } } });
      if (hidden(row?.session, ownerId)) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
    },
    async run(ownerId: string, id: string): Promise<void> {
      const row = await db.run.findUnique({ where: { id }, select: { ownerId: true, session: { select: { deletedAt: true } } } });
      if (hidden(row && { ownerId: row.ownerId, deletedAt: row.session.deletedAt }, ownerId)) throw new AppError("not_found:run", `No run with id ${quoteId(id)}.`);
    },
  };
}

export type Visibility = ReturnType<typeof createVisibility>;
