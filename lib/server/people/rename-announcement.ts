import { LOCAL_OWNER } from "../../protocol/access";
import type { PersonRenamed } from "../../protocol/display-names";
import type { Person } from "../../protocol/teams";
import type { DomainEvents } from "../events";
import { log } from "../log";

export interface RenameAnnouncementDeps {
  events: DomainEvents;
  /** Who shares a chat with a person. */
  members: { sharingWith(user: string): Promise<Iterable<string>> };
  /** Everyone (the administrators among them hear every rename). */
  everyone(): Promise<Person[]>;
}

/**
 * Tells a rename to those who may read the name (GET /api/names): the person, who shares a chat with
 * them, administrators. In the order the renames happened, whichever audience is read first: a tab
 * told "Annie" then "Ann" would show the older name.
 */
export function announceRename({ events, members, everyone }: RenameAnnouncementDeps): (renamed: PersonRenamed) => void {
  let told: Promise<void> = Promise.resolve();
  return (renamed) => {
    const audience = Promise.all([members.sharingWith(renamed.name), everyone()]).then(
      ([sharing, people]) => new Set([LOCAL_OWNER, renamed.name, ...sharing, ...people.filter((p) => p.admin).map((p) => p.name)]),
    );
    told = told
      .then(() => audience)
      .then((people) => void events.emit("person.renamed", renamed, [...people]))
      .catch((error: unknown) => log.warn({ err: error, person: renamed.name }, "could not tell the tabs of a rename"));
  };
}
