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
