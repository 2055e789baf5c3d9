import { z } from "zod";
import { LOCAL_OWNER } from "./access";
import { PersonNameSchema } from "./teams";

/**
 * One name per person: what every screen, the audit and the CLI's text show for a person. A
 * person's id (their `ownerId`, what answerers, members, rules and the audit keep) never changes;
 * their display name is their id until someone renames them, and the administrator `local` reads
 * "Administrator" until renamed.
 */

/** What the administrator `local` is called until renamed. */
export const ADMINISTRATOR_NAME = "Administrator";

/** A display name: checked as a person's name is (letters, digits, dot, dash and underscore, at most 64). */
export const DisplayNameSchema = PersonNameSchema;

/** A person's name where no one renamed them. */
export const defaultDisplayName = (id: string): string => (id === LOCAL_OWNER ? ADMINISTRATOR_NAME : id);

/** How a reader names a person by id. */
export type NameOf = (id: string) => string;

/** Names as the directory gave them; anyone it leaves out (a person removed since) by their default name. */
export const nameOfFrom =
  (names: Readonly<Record<string, string>>): NameOf =>
  (id) =>
    Object.hasOwn(names, id) ? names[id]! : defaultDisplayName(id);

/** Two names people could not tell apart: they differ only in case. */
export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** `GET /api/names` (anyone signed in): every person's display name by id, the administrator `local` too. */
export const PeopleNamesSchema = z.object({ names: z.record(z.string(), z.string()) });
export type PeopleNames = z.infer<typeof PeopleNamesSchema>;

/** `PATCH /api/users/{name}` (`parley user rename NAME NEW`): the display name to give them. */
export const RenamePersonBodySchema = z.strictObject({ displayName: DisplayNameSchema });
export type RenamePersonBody = z.infer<typeof RenamePersonBodySchema>;

/** A rename's answer, and the socket event `person.renamed` every tab hears: the person's id and their new display name. */
export const PersonRenamedSchema = z.object({ name: PersonNameSchema, displayName: z.string() });
export type PersonRenamed = z.infer<typeof PersonRenamedSchema>;
