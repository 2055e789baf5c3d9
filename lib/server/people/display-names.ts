import { LOCAL_OWNER } from "../../protocol/access";
import { defaultDisplayName, DisplayNameSchema, nameOfFrom, sameName, type NameOf, type PersonRenamed } from "../../protocol/display-names";
import { AppError, parseOrThrow } from "../../protocol/errors";
import type { PeopleStore } from "../store/people/people-store";

/**
 * People's display names (lib/protocol/display-names.ts): the one name each person is shown by.
 * Ids stay what answerers, members, rules, runs and the audit keep; only what people read changes.
 * The table is small and read whole at each use, so a rename on any node (or by the CLI with no
 * server) is read at once everywhere.
 */
export function createDisplayNames(store: Pick<PeopleStore, "list" | "displayNames" | "setDisplayName">, { now = Date.now }: { now?: () => number } = {}) {
  /** Everyone's display name by id: the administrator `local` and every person. */
  async function directory(): Promise<Record<string, string>> {
    const [people, given] = await Promise.all([store.list(), store.displayNames()]);
    const names: Record<string, string> = { [LOCAL_OWNER]: given.get(LOCAL_OWNER) ?? defaultDisplayName(LOCAL_OWNER) };
    for (const person of people) names[person.id] = given.get(person.id) ?? defaultDisplayName(person.id);
    return names;
  }

  /** The person a name means: an id as it is, else whoever is shown by that name (in any case); null for nobody. */
  const resolveIn = (names: Record<string, string>, name: string): string | null =>
    Object.hasOwn(names, name) ? name : (Object.entries(names).find(([, shown]) => sameName(shown, name))?.[0] ?? null);

  /** Who other than `self` already goes by `name`, as id or display name (case aside); null for nobody. */
  const holderIn = (names: Record<string, string>, name: string, self: string | null): string | null =>
    Object.entries(names).find(([id, shown]) => id !== self && (sameName(id, name) || sameName(shown, name)))?.[0] ?? null;

  return {
    directory,

    /** How the audit and notifications name a person (one read of the table). */
    nameOf: async (): Promise<NameOf> => nameOfFrom(await directory()),

    /** The id of the person a name (their id or their display name) means; null for nobody. */
    resolve: async (name: string): Promise<string | null> => resolveIn(await directory(), name),

    /** Refuses a new person's id that someone else is already shown by ("Administrator", or a name someone was renamed to): two people would read alike. */
    async checkFree(id: string): Promise<void> {
      const names = await directory();
      const holder = Object.entries(names).find(([other, shown]) => other !== id && sameName(shown, id))?.[0];
      if (holder !== undefined) throw new AppError("person_exists", `"${names[holder]}" is already ${holder === LOCAL_OWNER ? "the administrator's" : `${holder}'s`} name: pick another.`);
    },

    /**
     * Gives the person `target` names (their id or display name) the display name `displayName`,
     * checked as a name is and unique among people's ids and display names (case aside). Their
     * default name (their id; "Administrator" for `local`) clears the row.
     */
    async rename(target: string, displayName: string): Promise<PersonRenamed> {
      const names = await directory();
      const id = resolveIn(names, target);
      if (id === null) throw new AppError("not_found:person", `No person named "${target}". See who there is with: parley user list`);
      const name = parseOrThrow(DisplayNameSchema, displayName);
      const holder = holderIn(names, name, id);
      if (holder !== null) throw new AppError("person_exists", `"${names[holder]}" is already ${holder === LOCAL_OWNER ? "the administrator's" : `${holder}'s`} name: pick another.`);
      const stored = name === defaultDisplayName(id) ? null : name;
      if (!(await store.setDisplayName(id, stored, new Date(now())))) throw new AppError("person_exists", `"${name}" was just given to someone else: pick another.`);
      return { name: id, displayName: name };
    },
  };
}

export type DisplayNames = ReturnType<typeof createDisplayNames>;

/**
 * The names a person's tabs may read: an administrator's, everyone's; anyone else's, their own, the
 * administrator's and those of the people who share a chat with them — never the list of all people.
 */
export function namesSeenBy(viewer: { id: string; admin: boolean }, everyone: Record<string, string>, sharing: ReadonlySet<string>): Record<string, string> {
  if (viewer.admin) return everyone;
  return Object.fromEntries(Object.entries(everyone).filter(([id]) => id === viewer.id || id === LOCAL_OWNER || sharing.has(id)));
}
