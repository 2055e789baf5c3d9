import type { SqlExecutor } from "../sql-executor";
import { questionAccess, questionAskedBy, runAccess, sessionAccess } from "../sessions/session-statements";

/** What a check of access reads: the owner, whether the viewer is a member (EXISTS: SQLite gives 0 or 1), and whether the session's delete has begun. */
export interface AccessRow {
  ownerId: string;
  deletedAt: Date | null;
  member: unknown;
}

/** A question's owner, whether its session's delete has begun, and who started its run (JSON: a RunStarter). */
export interface AskedByRow {
  ownerId: string;
  deletedAt: Date | null;
  startedBy: string | null;
}

/** One read of access to a session, question or run by `viewer` (undefined for an unknown id). */
export type AccessRead = (p: { id: string; viewer: string }) => Promise<AccessRow | undefined>;

/** The reads visibility checks with: who owns what, and who it is shared with. */
export interface AccessStore {
  session: AccessRead;
  question: AccessRead;
  run: AccessRead;
  questionAskedBy(id: string): Promise<AskedByRow | undefined>;
}

export function createAccessStore(exec: SqlExecutor): AccessStore {
  return {
    session: async (p) => (await exec.rows(sessionAccess, p))[0],
    question: async (p) => (await exec.rows(questionAccess, p))[0],
    run: async (p) => (await exec.rows(runAccess, p))[0],
    questionAskedBy: async (id) => (await exec.rows(questionAskedBy, { id }))[0],
  };
}
