import type { Session } from "../protocol/entities";

/** Inserts or replaces a session, most recently updated first. */
export function upsertSession(list: Session[], session: Session): Session[] {
  return [session, ...list.filter((s) => s.id !== session.id)].sort((a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt));
}

/** Drops a deleted session; a late update about it must not bring it back (the caller keeps the deleted ids). */
export function removeSession(list: Session[], id: string): Session[] {
  return list.filter((s) => s.id !== id);
}
