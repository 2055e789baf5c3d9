import { statement, typedParam } from "../typed-sql";

/**
 * Shares a live session with a person: nothing when it is shared with them already (as first
 * added), when they own it (its owner is no member of it), or when its delete has begun.
 */
export const addMember = statement((q, p: { sessionId: string; userId: string; addedBy: string; at: Date }, engine) =>
  q
    .insertInto("SessionMember")
    .columns(["sessionId", "userId", "addedBy", "createdAt"])
    .expression((eb) =>
      eb
        .selectFrom("ChatSession as s")
        .select(["s.id as sessionId", typedParam(engine, p.userId, "text").as("userId"), typedParam(engine, p.addedBy, "text").as("addedBy"), typedParam(engine, p.at, "timestamp(3)").as("createdAt")])
        .where("s.id", "=", p.sessionId)
        .where("s.deletedAt", "is", null)
        .where("s.ownerId", "<>", p.userId),
    )
    .onConflict((oc) => oc.columns(["sessionId", "userId"]).doNothing()),
);

export const removeMember = statement((q, p: { sessionId: string; userId: string }) => q.deleteFrom("SessionMember").where("sessionId", "=", p.sessionId).where("userId", "=", p.userId));

/** A live session's owner (since it was created) with one row per member, oldest member first; no row when there is no such session. */
export const peopleOf = statement((q, p: { sessionId: string }) =>
  q
    .selectFrom("ChatSession as s")
    .leftJoin("SessionMember as m", "m.sessionId", "s.id")
    .select(["s.ownerId", "s.createdAt", "m.userId", "m.createdAt as addedAt"])
    .where("s.id", "=", p.sessionId)
    .where("s.deletedAt", "is", null)
    .orderBy("m.createdAt")
    .orderBy("m.userId"),
);

/** Whether someone of that name was added as a person (`local`, the administrator, has no row). */
export const personNamed = statement((q, p: { name: string }) => q.selectFrom("User").select("id").where("id", "=", p.name));

/** The names of a session's members, whatever its state (a delete tells them too). */
export const memberNames = statement((q, p: { sessionId: string }) => q.selectFrom("SessionMember").select("userId").where("sessionId", "=", p.sessionId).orderBy("createdAt").orderBy("userId"));

/** The owner and members of every live shared session `userId` owns or is a member of: the people who share a chat with them. */
export const sharingWith = statement((q, p: { userId: string }) =>
  q
    .selectFrom("ChatSession as s")
    .innerJoin("SessionMember as m", "m.sessionId", "s.id")
    .select(["s.ownerId", "m.userId"])
    .where("s.deletedAt", "is", null)
    .where((eb) => eb.or([eb("s.ownerId", "=", p.userId), eb("s.id", "in", eb.selectFrom("SessionMember").select("sessionId").where("userId", "=", p.userId))])),
);
