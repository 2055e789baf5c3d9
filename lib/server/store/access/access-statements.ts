import { statement } from "../typed-sql";

export const insertToken = statement((q, p: { id: string; ownerId: string; name: string; secretHash: string; scope: string; at: Date }) =>
  q.insertInto("ApiToken").values({ id: p.id, ownerId: p.ownerId, name: p.name, secretHash: p.secretHash, scope: p.scope, createdAt: p.at }).returningAll(),
);

export const listTokens = statement((q) => q.selectFrom("ApiToken").selectAll().orderBy("createdAt", "asc"));

export const findToken = statement((q, p: { id: string }) => q.selectFrom("ApiToken").selectAll().where("id", "=", p.id));

/** Revoked at `at` unless it already was (then it keeps its first revocation): the token, none for an unknown id. */
export const revokeToken = statement((q, p: { id: string; at: Date }) =>
  q
    .updateTable("ApiToken")
    .set((eb) => ({ revokedAt: eb.fn.coalesce("revokedAt", eb.val(p.at)) }))
    .where("id", "=", p.id)
    .returningAll(),
);

export const touchToken = statement((q, p: { id: string; at: Date }) => q.updateTable("ApiToken").set({ lastUsedAt: p.at }).where("id", "=", p.id));

/** A server-wide value (the cookie key, the session epoch), shared by every node of the database. */
export const setting = statement((q, p: { key: string }) => q.selectFrom("Setting").select("value").where("key", "=", p.key));

/** Makes the setting with `value`, or sets it to `replace` (null: keeps it): its value now. Atomic on both engines: racing makers all read the first's. */
export const putSetting = statement((q, p: { key: string; value: string; replace: string | null }) =>
  q
    .insertInto("Setting")
    .values({ key: p.key, value: p.value })
    .onConflict((oc) => oc.column("key").doUpdateSet((eb) => ({ value: eb.fn.coalesce(eb.val(p.replace), eb.ref("Setting.value")) })))
    .returning("value"),
);
