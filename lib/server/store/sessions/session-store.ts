import type { SqlExecutor } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as S from "./session-statements";

/** A session not being deleted, with its pending questions counted and its members' names (space-separated; null for none). */
export type LiveSessionRow = RowOf<typeof S.liveSession>;
export type SessionRow = RowOf<typeof S.insertSession>;

/** The ChatSession table: a person's chats, from their making to the two steps of their delete. */
export interface SessionStore {
  /** The session unless its delete has begun (or it is gone). */
  live(id: string): Promise<LiveSessionRow | undefined>;
  /** The sessions a person owns or is a member of (every owner's when `ownerId` is null), most recently updated first. */
  listOf(ownerId: string | null, limit: number): Promise<LiveSessionRow[]>;
  /** Who a session belongs to and whether its delete has begun. */
  owner(id: string): Promise<{ ownerId: string; deletedAt: Date | null } | undefined>;
  /** An owner's session named by its id or, failing that, its most recent one with that title (not being deleted). */
  idNamed(ownerId: string, name: string): Promise<string | undefined>;
  insert(session: { id: string; ownerId: string; title: string; at: Date }): Promise<SessionRow>;
  /** An automatic title, only while the session is `untitled` and no person chose one: whether it was given. */
  autoTitle(p: { id: string; title: string; untitled: string; at: Date }): Promise<boolean>;
  /** Moves a live session to the top of its people's lists. */
  touch(id: string, at: Date): Promise<void>;
  /** A person's title: false for no live session. */
  rename(p: { id: string; title: string; at: Date }): Promise<boolean>;
  /** Begins a delete: the owner when this write began it, undefined otherwise. */
  markDeleted(id: string, at: Date): Promise<{ ownerId: string } | undefined>;
  /** Removes a session marked deleted; its messages, runs, questions and rules go with it. */
  removeDeleted(id: string): Promise<void>;
  /** The sessions whose delete began. */
  deletedIds(): Promise<string[]>;
}

export function createSessionStore(exec: SqlExecutor): SessionStore {
  return {
    live: async (id) => (await exec.rows(S.liveSession, { id }))[0],
    listOf: (ownerId, limit) => exec.rows(S.sessionsOf, { ownerId, limit }),
    owner: async (id) => (await exec.rows(S.sessionOwner, { id }))[0],
    idNamed: async (ownerId, name) => (await exec.rows(S.sessionNamed, { ownerId, name }))[0]?.id,
    insert: async (session) => (await exec.write(S.insertSession, session))[0]!,
    autoTitle: async (p) => (await exec.changes(S.autoTitle, p)) > 0,
    touch: async (id, at) => void (await exec.changes(S.touch, { id, at })),
    rename: async (p) => (await exec.changes(S.rename, p)) > 0,
    markDeleted: async (id, at) => (await exec.write(S.markDeleted, { id, at }))[0],
    removeDeleted: async (id) => void (await exec.changes(S.removeDeleted, { id })),
    deletedIds: async () => (await exec.rows(S.deletedIds, {})).map((r) => r.id),
  };
}
