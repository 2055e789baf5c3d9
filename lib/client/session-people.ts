import type { WhoAmI } from "../protocol/access";
import type { Session } from "../protocol/entities";
import { defaultDisplayName, type NameOf } from "../protocol/display-names";
import { PersonNameSchema, type SessionMember } from "../protocol/teams";

/**
 * A session's people as the People panel and the chat list show them: who I am, whether I may
 * share, rename and delete a chat (its owner, or an administrator), whose a chat shared with me
 * is, and what each person's row offers (Remove, or Leave for myself).
 */

/** The person this browser is signed in as. */
export interface Me {
  name: string;
  admin: boolean;
}

/** Who the session route says I am; `local` (the server token's owner) is the administrator. */
export function meOf(who: WhoAmI): Me {
  return { name: who.ownerId, admin: who.admin };
}

/** Whether I may share, rename and delete the chat; while who I am is not known yet, the server decides. */
export const mayManage = (session: Pick<Session, "ownerId">, me: Me | null): boolean => me === null || session.ownerId === me.name || me.admin;

/** "alice’s" (its owner's display name) for a chat someone shared with me; null for my own (or while who I am is not known). */
export const whoseChat = (session: Pick<Session, "ownerId">, me: Me | null, nameOf: NameOf = defaultDisplayName): string | null =>
  me === null || session.ownerId === me.name ? null : `${nameOf(session.ownerId)}’s`;

/** How the chat list says a shared chat is shared, for a screen reader: "Shared", "Shared by alice". */
export const sharedWords = (session: Pick<Session, "ownerId" | "shared">, me: Me | null, nameOf: NameOf = defaultDisplayName): string | null => {
  if (!session.shared && whoseChat(session, me) === null) return null;
  return whoseChat(session, me) === null ? "Shared" : `Shared by ${nameOf(session.ownerId)}`;
};

/** Whether I may rename this person: an administrator anyone, anyone else only themselves. */
export const mayRename = (user: string, me: Me | null): boolean => me !== null && (me.admin || user === me.name);

export interface PersonRow {
  user: string;
  role: SessionMember["role"];
  you: boolean;
  /** What its button does: remove them (I manage the chat), leave (it is me, a member), or none. */
  action: "remove" | "leave" | null;
}

/** The panel's rows and whether it offers "Add a person". */
export function peopleView(members: SessionMember[], me: Me | null): { rows: PersonRow[]; canAdd: boolean; owner: string | null } {
  const owner = members.find((m) => m.role === "owner")?.user ?? null;
  const canAdd = me !== null && (owner === me.name || me.admin);
  const rows = members.map(({ user, role }): PersonRow => {
    const you = me !== null && user === me.name;
    const action = role === "owner" ? null : you ? "leave" : canAdd ? "remove" : null;
    return { user, role, you, action };
  });
  return { rows, canAdd, owner };
}

/** The name typed into "Add a person", checked as the server will: the name, or why it is none. */
export function personNameOf(text: string): { ok: true; name: string } | { ok: false; message: string } {
  if (text.trim() === "") return { ok: false, message: "Type the person’s name." };
  const parsed = PersonNameSchema.safeParse(text);
  return parsed.success ? { ok: true, name: parsed.data } : { ok: false, message: "A name has letters, digits, dots, dashes and underscores only (at most 64)." };
}

export const membersPath = (sessionId: string, user?: string) => `/api/sessions/${encodeURIComponent(sessionId)}/members${user === undefined ? "" : `/${encodeURIComponent(user)}`}`;
