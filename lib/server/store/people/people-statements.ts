import { statement } from "../typed-sql";

/** A new person; none returned when the name is taken (the first of two racing adds wins). */
export const insertPerson = statement((q, p: { id: string; admin: boolean; addedBy: string; at: Date }) =>
  q
    .insertInto("User")
    .values({ id: p.id, admin: p.admin, addedBy: p.addedBy, createdAt: p.at })
    .onConflict((oc) => oc.column("id").doNothing())
    .returningAll(),
);

export const listPeople = statement((q) => q.selectFrom("User").selectAll().orderBy("createdAt", "asc").orderBy("id", "asc"));

export const findPerson = statement((q, p: { id: string }) => q.selectFrom("User").selectAll().where("id", "=", p.id));

export const deletePerson = statement((q, p: { id: string }) => q.deleteFrom("User").where("id", "=", p.id).returningAll());

export const insertLink = statement((q, p: { id: string; userId: string; secretHash: string; expiresAt: Date; at: Date }) =>
  q.insertInto("SignInLink").values({ id: p.id, userId: p.userId, secretHash: p.secretHash, expiresAt: p.expiresAt, createdAt: p.at }),
);

export const findLink = statement((q, p: { id: string }) => q.selectFrom("SignInLink").selectAll().where("id", "=", p.id));

/** Spends a link: one conditional update, so of two browsers racing with it exactly one gets the person. */
export const spendLink = statement((q, p: { id: string; at: Date }) =>
  q.updateTable("SignInLink").set({ usedAt: p.at }).where("id", "=", p.id).where("usedAt", "is", null).where("expiresAt", ">", p.at).returning("userId"),
);

/** A person's links that were never used go (spent ones stay: they say when the person signed in). */
export const deleteUnusedLinksOf = statement((q, p: { userId: string }) => q.deleteFrom("SignInLink").where("userId", "=", p.userId).where("usedAt", "is", null));

/** Every display name given (the people no one renamed have no row: their id is their name). */
export const listDisplayNames = statement((q) => q.selectFrom("DisplayName").select(["personId", "name"]).orderBy("personId", "asc"));

export const setDisplayName = statement((q, p: { personId: string; name: string; at: Date }) =>
  q
    .insertInto("DisplayName")
    .values({ personId: p.personId, name: p.name, updatedAt: p.at })
    .onConflict((oc) => oc.column("personId").doUpdateSet({ name: p.name, updatedAt: p.at })),
);

export const deleteDisplayName = statement((q, p: { personId: string }) => q.deleteFrom("DisplayName").where("personId", "=", p.personId));
