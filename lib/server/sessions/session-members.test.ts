import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { QuestionSpecSchema } from "../../protocol/question";
import { AppError } from "../../protocol/errors";
import type { Session } from "../../protocol/entities";
import { startFakeParley, until, type FakeParley } from "../../../tests/helpers/fakes";

// Sharing a session: who sees it and what they may do, and who hears of it. Runs on PostgreSQL too (scripts/test-pg.mjs: lib/server/sessions).
let fx: FakeParley;
beforeEach(async () => {
  fx = await startFakeParley();
  for (const id of ["bob", "carol"]) await fx.fixture.user.create({ data: { id, addedBy: "local" } });
});
afterEach(() => fx.close());

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return "ok";
  } catch (err) {
    return AppError.from(err).code;
  }
};

/** A session of alice's with a run waiting on a question. */
async function aliceAsks() {
  const { parley } = fx;
  const session = await parley.sessions.createSession({ ownerId: "alice", title: "Trip" });
  const run = await parley.runs.startRun({ sessionId: session.id, functionName: "f" });
  const worker = await until(() => fx.pool.created.find((w) => w.sentOf("run.start").some((m) => m.runId === run.id)));
  await until(() => parley.runs.liveStates()[run.id] === "working");
  const questionId = randomUUID();
  worker.say({
    type: "question.ask",
    runId: run.id,
    seq: 0,
    digest: "d0",
    questionId,
    spec: QuestionSpecSchema.parse({ kind: "question", prompt: "Where?", options: ["Rome", "Oslo"], timeoutMs: null }),
  });
  await until(() => parley.runs.liveStates()[run.id] === "waiting");
  return { session, run, questionId };
}

describe("who sees a shared session", () => {
  it("its owner and its members see it, its questions and its runs; a stranger gets 404 as for an unknown id", async () => {
    const { parley } = fx;
    const { visibility } = parley.access;
    const { session, run, questionId } = await aliceAsks();
    expect(await codeOf(visibility.session("bob", session.id))).toBe("not_found:session");
    await parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });

    expect(await visibility.session("alice", session.id)).toBe("owner");
    expect(await visibility.session("bob", session.id)).toBe("member");
    expect(await codeOf(visibility.question("bob", questionId))).toBe("ok");
    expect(await codeOf(visibility.run("bob", run.id))).toBe("ok");
    for (const [check, id, code] of [
      [visibility.session, session.id, "not_found:session"],
      [visibility.question, questionId, "not_found:question"],
      [visibility.run, run.id, "not_found:run"],
    ] as const) {
      expect(await codeOf(check("carol", id))).toBe(code);
      expect(await codeOf(check("carol", "unknown"))).toBe(code);
    }
    // The list shows it to its member, marked as shared and whose it is.
    expect((await parley.sessions.listSessions({ ownerId: "bob" })).map((s) => [s.id, s.ownerId, s.shared])).toEqual([[session.id, "alice", true]]);
    expect(await parley.sessions.listSessions({ ownerId: "carol" })).toEqual([]);
  });

  it("renaming, deleting and sharing stay its owner's or an administrator's: 403 for a member, 404 for a stranger", async () => {
    const { visibility } = fx.parley.access;
    const session = await fx.parley.sessions.createSession({ ownerId: "alice" });
    await fx.parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });
    await fx.parley.members.add({ sessionId: session.id, user: "local", by: "alice" });
    expect(await visibility.manage({ ownerId: "alice", admin: false }, session.id, "delete this chat")).toBe("owner");
    const refused = await visibility.manage({ ownerId: "bob", admin: false }, session.id, "delete this chat").catch((err: AppError) => err);
    expect(refused).toMatchObject({ code: "forbidden", message: "Only this chat's owner (alice) or an administrator may delete this chat." });
    expect(await codeOf(visibility.manage({ ownerId: "carol", admin: false }, session.id, "delete this chat"))).toBe("not_found:session");
    // An administrator who sees it (a member) may; one added as an administrator too.
    expect(await visibility.manage({ ownerId: "local", admin: true }, session.id, "delete this chat")).toBe("member");
    expect(await visibility.manage({ ownerId: "bob", admin: true }, session.id, "delete this chat")).toBe("member");
  });

  it("a member's reply settles the question for everyone; a stranger's is not found", async () => {
    const { parley } = fx;
    const { session, questionId } = await aliceAsks();
    expect(await codeOf(parley.questions.reply({ id: questionId, value: "Rome", by: "socket", person: "bob" }))).toBe("not_found:question");
    await parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });
    expect(await codeOf(parley.questions.reply({ id: questionId, value: "Rome", by: "socket", person: "carol" }))).toBe("not_found:question");
    const bob = await parley.questions.reply({ id: questionId, value: "Rome", by: "socket", person: "bob" });
    expect(bob.outcome).toBe("answered");
    const alice = await parley.questions.reply({ id: questionId, value: "Oslo", by: "socket", person: "alice" });
    expect(alice).toMatchObject({ outcome: "already_answered", question: { answer: "Rome" } });
  });
});

describe("sharing", () => {
  it("adds people by name (not_found:person for anyone else, `local` included as the administrator); twice, or the owner, changes nothing", async () => {
    const { members, sessions } = fx.parley;
    const session = await sessions.createSession({ ownerId: "alice" });
    const refused = await members.add({ sessionId: session.id, user: "erin", by: "alice" }).catch((err: AppError) => err);
    expect(refused).toMatchObject({ code: "not_found:person", message: expect.stringContaining('"erin"') });
    await members.add({ sessionId: session.id, user: "bob", by: "alice" });
    await members.add({ sessionId: session.id, user: "local", by: "alice" });
    const again = await members.add({ sessionId: session.id, user: "bob", by: "local" });
    expect(await members.add({ sessionId: session.id, user: "alice", by: "alice" })).toEqual(again);
    expect(again.members.map((m) => [m.user, m.role])).toEqual([
      ["alice", "owner"],
      ["bob", "member"],
      ["local", "member"],
    ]);
    expect((await fx.fixture.sessionMember.findMany({ where: { userId: "bob" } })).map((m) => m.addedBy)).toEqual(["alice"]);
    expect(await codeOf(members.list("unknown"))).toBe("not_found:session");
  });

  it("tells every person's tabs: the new member hears the session, a removed one hears they left, a delete reaches every member", async () => {
    const { members, sessions, events } = fx.parley;
    const heard: string[] = [];
    events.on("session.updated", (s: Session, people) => heard.push(`updated:${s.shared}:${people.join(",")}`));
    events.on("session.left", ({ user }) => heard.push(`left:${user}`));
    events.on("session.deleted", ({ people }) => heard.push(`deleted:${people.join(",")}`));
    const session = await sessions.createSession({ ownerId: "alice" });
    await members.add({ sessionId: session.id, user: "bob", by: "alice" });
    await members.add({ sessionId: session.id, user: "bob", by: "alice" });
    await members.add({ sessionId: session.id, user: "carol", by: "alice" });
    await members.remove({ sessionId: session.id, user: "carol" });
    await members.remove({ sessionId: session.id, user: "carol" });
    await sessions.renameSession({ id: session.id, title: "Ours" });
    await members.remove({ sessionId: session.id, user: "bob" });
    await members.add({ sessionId: session.id, user: "bob", by: "alice" });
    await fx.parley.deleteSession({ id: session.id });
    expect(heard).toEqual([
      "updated:false:alice",
      "updated:true:alice,bob",
      "updated:true:alice,bob,carol",
      "left:carol",
      "updated:true:alice,bob",
      "updated:true:alice,bob",
      "left:bob",
      "updated:false:alice",
      "updated:true:alice,bob",
      "deleted:alice,bob",
    ]);
  });
});
