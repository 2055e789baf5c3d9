import { TOKEN_USAGE } from "./usage";
import { ApiTokenNameSchema, ApiTokenScopeSchema, LOCAL_OWNER, OwnerIdSchema, type ApiTokenInfo } from "../protocol/access";
import { AppError, parseOrThrow } from "../protocol/errors";
import { createApiTokens } from "../server/access/api-tokens";
import type { Db } from "../server/store/db/client";
import { createPeopleStore } from "../server/store/people/people-store";

const formatToken = (t: ApiTokenInfo) =>
  `${t.id}  ${t.name}  owner ${t.ownerId}${t.scope === "full" ? "" : `  scope ${t.scope}`}  created ${t.createdAt}${t.lastUsedAt ? `, last used ${t.lastUsedAt}` : ""}${t.revokedAt ? `  REVOKED ${t.revokedAt}` : ""}`;

/** `parley token create|list`: API tokens are kept in the database, so these work with or without a server (`revoke`: revoke-token-command.ts). */
export async function tokenCommand(
  db: Db,
  [sub]: string[],
  options: { name?: string; user?: string; owner?: string; scope?: string },
  print: (data: unknown, text: string) => void,
  usage: (message: string) => Error,
): Promise<number> {
  const tokens = createApiTokens(db);
  switch (sub) {
    case "create": {
      const name = parseOrThrow(ApiTokenNameSchema, options.name ?? "API token");
      // --owner is the older spelling of --user.
      if (options.user !== undefined && options.owner !== undefined && options.user !== options.owner) throw usage("Give --user NAME (or its older spelling --owner), not both.");
      const ownerId = parseOrThrow(OwnerIdSchema, options.user ?? options.owner ?? LOCAL_OWNER);
      const scope = parseOrThrow(ApiTokenScopeSchema, options.scope ?? "full");
      // A token speaks for a person only while they exist: one for nobody would be refused at every use.
      if (ownerId !== LOCAL_OWNER && !(await createPeopleStore(db.exec).find(ownerId))) {
        throw new AppError("not_found:person", `No person named "${ownerId}": add them first with parley user add ${ownerId}, or see who there is with parley user list.`);
      }
      const { token, info } = await tokens.create({ ownerId, name, scope });
      print(
        { token, ...info },
        `${token}\n\nThis is the only time the token is shown${ownerId === LOCAL_OWNER ? "" : `; it acts as ${ownerId}`}. Send it as "Authorization: Bearer <token>" (REST) or auth: { token } (Socket.IO).\nRevoke it with: parley token revoke ${info.id}`,
      );
      return 0;
    }
    case "list": {
      const list = await tokens.list();
      print(list, list.length ? list.map(formatToken).join("\n") : "No API tokens.");
      return 0;
    }
    default:
      throw usage(`Usage:\n${TOKEN_USAGE}`);
  }
}
