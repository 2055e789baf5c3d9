import { TOKEN_USAGE } from "./usage";
import { ApiTokenNameSchema, ApiTokenScopeSchema, LOCAL_OWNER, OwnerIdSchema, type ApiTokenInfo } from "../protocol/access";
import { parseOrThrow } from "../protocol/errors";
import { createApiTokens } from "../server/access/api-tokens";
import type { Db } from "../server/store/db/client";

const formatToken = (t: ApiTokenInfo) =>
  `${t.id}  ${t.name}  owner ${t.ownerId}${t.scope === "full" ? "" : `  scope ${t.scope}`}  created ${t.createdAt}${t.lastUsedAt ? `, last used ${t.lastUsedAt}` : ""}${t.revokedAt ? `  REVOKED ${t.revokedAt}` : ""}`;

/** `parley token create|list`: API tokens are kept in the database, so these work with or without a server (`revoke`: revoke-token-command.ts). */
export async function tokenCommand(
  db: Db,
  [sub]: string[],
  options: { name?: string; owner?: string; scope?: string },
  print: (data: unknown, text: string) => void,
  usage: (message: string) => Error,
): Promise<number> {
  const tokens = createApiTokens(db);
  switch (sub) {
    case "create": {
      const name = parseOrThrow(ApiTokenNameSchema, options.name ?? "API token");
      const ownerId = parseOrThrow(OwnerIdSchema, options.owner ?? LOCAL_OWNER);
      const scope = parseOrThrow(ApiTokenScopeSchema, options.scope ?? "full");
      const { token, info } = await tokens.create({ ownerId, name, scope });
      print(
        { token, ...info },
        `${token}\n\nThis is the only time the token is shown. Send it as "Authorization: Bearer <token>" (REST) or auth: { token } (Socket.IO).\nRevoke it with: parley token revoke ${info.id}`,
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
