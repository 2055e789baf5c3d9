import { LOCAL_OWNER } from "../../protocol/access";
import type { PeopleCache } from "./people-cache";
import type { Principal } from "./authenticator";

/** Who answers: the person, and whether they are an administrator. */
export interface Answerer {
  person: string;
  admin: boolean;
}

/** The person a credential answers questions as, and whether they are an administrator (who sees every session). */
export function answeringAs(principal: Pick<Principal, "ownerId" | "admin">): Answerer {
  return { person: principal.ownerId, admin: principal.admin };
}

/** A person as a surface that names them by id (a Slack link, a mail) answers as them: null once they are no longer in Parley. */
export async function answererNamed(people: Pick<PeopleCache, "get">, person: string): Promise<Answerer | null> {
  if (person === LOCAL_OWNER) return { person, admin: true };
  const known = await people.get(person);
  return known && { person, admin: known.admin };
}
