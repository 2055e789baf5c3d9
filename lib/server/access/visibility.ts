import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { Db } from "../store/db/client";
import type { Statement } from "../store/typed-sql";
import { RunStarterSchema } from "../../protocol/entities";
import { questionAccess, questionAskedBy, runAccess, sessionAccess } from "../store/sessions/session-statements";

/**
 * What an owner may see. An id of another owner answers exactly as an unknown id does (404 with
 * the same message), so ids cannot be probed. Owners never change, so a check before an action holds. A session being deleted, and
 * everything in it, is not found from the moment its delete begins.
 */
export function createVisibility(db: Db) {
  const { exec } = db;
  /** A check before an action: what `access` reads must be `ownerId`'s, in a session whose delete has not begun. */
  const check = (access: Statement<{ id: string }, { ownerId: string; deletedAt: Date | null }>, code: "session" | "question" | "run") => async (ownerId: string, id: string) => {
    const [found] = await exec.rows(access, { id });
    if (!found || found.ownerId !== ownerId || found.deletedAt !== null) throw new AppError(`not_found:${code}`, `No ${code} with id ${quoteId(id)}.`);
  };
  /** What a token that may only ask sees: the questions its own asks put (its id on their run's starter), answered as an unknown id otherwise. */
  async function askedBy(ownerId: string, credential: string, id: string): Promise<void> {
    const [found] = await exec.rows(questionAskedBy, { id });
    const starter = found?.startedBy ? RunStarterSchema.safeParse(JSON.parse(found.startedBy)) : null;
    const asker = starter?.success && starter.data.tokenId ? `api:${starter.data.tokenId}` : null;
    if (!found || found.ownerId !== ownerId || found.deletedAt !== null || asker !== credential) throw new AppError("not_found:question", `No question with id ${quoteId(id)}.`);
  }
  return { session: check(sessionAccess, "session"), question: check(questionAccess, "question"), run: check(runAccess, "run"), askedBy };
}

export type Visibility = ReturnType<typeof createVisibility>;
