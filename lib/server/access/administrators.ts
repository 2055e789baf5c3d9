import { LOCAL_OWNER } from "../../protocol/access";

/** Who a request speaks for, as far as being an administrator goes. */
export interface Someone {
  ownerId: string;
  /** Set for a person added as an administrator (`parley user add --admin`). */
  admin?: boolean;
}

/** An administrator manages any session they see (its members, its title, its delete): `local`, the server token's owner, and people added as administrators. */
export function isAdministrator(who: Someone): boolean {
  return who.ownerId === LOCAL_OWNER || who.admin === true;
}
