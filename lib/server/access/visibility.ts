import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import { directSqlite, type Db } from "../db/client";

/**
 * What an owner may see. An id of another owner answers exactly as an unknown id does (404 with
 * the same message), so ids cannot be probed. Owners never change, so a check before an action holds. A session being deleted, and
 * everything in it, is not found from the moment its delete begins.
 */
export function createVisibility(db: Db) {
  const hidden = (found: { ownerId: string; deletedAt?: Date | string | null } | null | undefined, ownerId: string) => !found || found.ownerId !== ownerId || (found.deletedAt ?? null) !== null;
  // Every request asks: on SQLite one prepared statement each (Prisma's findUnique with a relation sends two).
  const direct = directSqlite(db);
  const read = direct ? (text: string) => (id: string) => direct.read(() => direct.prepare(text).get<{ ownerId: string; deletedAt: string | null }>(id) ?? null) : null;
  const sessionRow = read?.(`SELECT "ownerId", "deletedAt" FROM "ChatSession" WHERE "id" = ?`);
  const questionRow = read?.(`SELECT s."ownerId", s."deletedAt" FROM "Question" q JOIN "ChatSession" s ON s."id" = q."sessionId" WHERE q."id" = ?`);
  const runRow = read?.(`SELECT r."ownerId", s."deletedAt" FROM "Run" r JOIN "ChatSession" s ON s."id" = r."sessionId" WHERE r."id" = ?`);

  return {
    async session(ownerId: string, id: string): Promise<void> {
      const row = sessionRow ? await sessionRow(id) : await db.chatSession.findUnique({ where: { id }, select: { ownerId: true, deletedAt: true } });
      if (hidden(row, ownerId)) throw new AppError("not_found:session", `No session with id ${quoteId(id)}.`);
    },
    async question(ownerId: string, id: string): Promise<void> {
      const row = questionRow ? await questionRow(id) : (await db.question.findUnique({ where: { id }, select: { session: { select: { ownerId: true, deletedAt: true } } } }))?.session;
      if (hidden(row, ownerId)) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
    },
    async run(ownerId: string, id: string): Promise<void> {
      const row = runRow
        ? await runRow(id)
        : await db.run.findUnique({ where: { id }, select: { ownerId: true, session: { select: { deletedAt: true } } } }).then((r) => r && { ownerId: r.ownerId, deletedAt: r.session.deletedAt });
      if (hidden(row, ownerId)) throw new AppError("not_found:run", `No run with id ${quoteId(id)}.`);
    },
  };
}

export type Visibility = ReturnType<typeof createVisibility>;
