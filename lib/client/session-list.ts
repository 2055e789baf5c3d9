import type { Session } from "../protocol/entities";

/** Inserts or replaces a session, most recently updated first. */
export function upsertSession(list: Session[], session: Session): Session[] {
  return [session, ...list.filter((s) => s.id !== session.id)].sort(
    (a, b) => Date.parse(b.updatedAt) - Date.parse(a.updatedAt),
  );
}
