import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type FixtureDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { AuditQuerySchema, type AuditPage } from "../../../protocol/audit";
import { createAuditService, type AuditService } from "../../audit/audit-service";

// The audit's statements on whichever engine the suite runs (SQLite, or PostgreSQL under `npm run test:pg`).
let t: StoreTestDb;
let fixture: FixtureDb;
let audit: AuditService;

const T = new Date("2026-12-05T10:02:11.123Z");
const at = (ms: number) => new Date(T.getTime() + ms);

beforeEach(async () => {
  t = await openStoreTestDb("parley_audit");
  fixture = t.fixture;
  audit = createAuditService(t.db);
  for (const [id, ownerId, title] of [
    ["sa", "alice", "Deploys"],
    ["sb", "bob", "Bob's"],
    ["sl", "local", "Admin's"],
  ]) {
    await fixture.chatSession.create({ data: { id: id!, ownerId: ownerId!, title: title! } });
    await fixture.run.create({ data: { id: `r-${id}`, sessionId: id!, ownerId: ownerId!, functionName: "deploy", input: "{}", status: "running" } });
  }
});

afterEach(() => t.close());

interface Settled {
  id: string;
  session?: string;
  closedAt?: Date | null;
  status?: string;
  closedBy?: string | null;
  closedByUser?: string | null;
  closedByRule?: string | null;
  approval?: object;
  editedInput?: object;
  feedback?: string;
}

const settled = ({ id, session = "sa", closedAt = T, status = "answered", closedBy = "socket", closedByUser = null, closedByRule = null, approval, editedInput, feedback }: Settled) =>
  fixture.question.create({
    data: {
      id,
      sessionId: session,
      runId: `r-${session}`,
      owner: "deploy",
      kind: approval ? "approval" : "question",
      prompt: `Ship ${id}?`,
      options: approval ? "[]" : '["yes","no"]',
      pendingId: `p-${id}`,
      targetDigest: "d",
      status,
      answer: status === "answered" ? (approval ? '"once"' : '"yes"') : null,
      feedback: feedback ?? null,
      closedBy: status === "pending" ? null : closedBy,
      closedByUser,
      closedByRule,
      approval: approval ? JSON.stringify(approval) : null,
      editedInput: editedInput ? JSON.stringify(editedInput) : null,
      createdAt: at(-60_000),
      closedAt: status === "pending" ? null : closedAt,
    },
  });

const shell = (command: string) => ({
  tool: "shell",
  input: { command },
  preview: { type: "text", text: command },
  subject: command,
  subjectKind: "command",
  cwd: ".",
  always: [],
  dangerous: true,
  fallback: "deny",
});

const read = (viewer: string | null, query: Record<string, string> = {}) => audit.read(viewer, AuditQuerySchema.parse(query));
const ids = (page: AuditPage) => page.entries.map((e) => e.id);

describe("the audit's pages", () => {
  it("reads oldest first by close time, then id, and a cursor never skips rows closed in the same millisecond", async () => {
    // Seven closed in one millisecond, one before and two after; created in an order that is neither.
    for (const id of ["q5", "q1", "q7", "q3", "q2", "q6", "q4"]) await settled({ id });
    await settled({ id: "q9", closedAt: at(1) });
    await settled({ id: "q0", closedAt: at(-1) });
    await settled({ id: "q8", closedAt: at(1) });

    const seen: string[] = [];
    let after: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = await read(null, { limit: "3", ...(after ? { after } : {}) });
      seen.push(...ids(page));
      if (!page.next) break;
      expect(page.next).toBe(page.entries.at(-1)!.cursor);
      after = page.next;
    }
    expect(seen).toEqual(["q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9"]);

    // An exact page: nothing follows it, so no next.
    const whole = await read(null, { limit: "10" });
    expect([whole.entries.length, whole.next]).toEqual([10, null]);
    // An entry's cursor follows from it, also within its millisecond.
    expect(ids(await read(null, { after: whole.entries[4]!.cursor, limit: "2" }))).toEqual(["q5", "q6"]);
    // An ISO time: what closed after it (the millisecond itself is past).
    expect(ids(await read(null, { after: T.toISOString() }))).toEqual(["q8", "q9"]);
    expect(ids(await read(null, { after: "2026-12-05T10:02:11.122Z" }))).toEqual(["q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9"]);
    expect(ids(await read(null, { after: "2026-12-06" }))).toEqual([]);
  });

  it("lists settled questions only: pending ones wait, every other ending is there", async () => {
    await settled({ id: "p", status: "pending" });
    for (const [i, status] of ["answered", "declined", "timed_out", "cancelled", "expired"].entries()) await settled({ id: `s${i}`, status, closedAt: at(i) });
    expect((await read(null)).entries.map((e) => e.status)).toEqual(["answered", "declined", "timed_out", "cancelled", "expired"]);
  });
});

describe("who sees what", () => {
  beforeEach(async () => {
    await settled({ id: "a1", session: "sa", closedByUser: "alice" });
    await settled({ id: "b1", session: "sb", closedByUser: "bob", closedAt: at(1) });
    await settled({ id: "l1", session: "sl", closedByUser: "local", closedAt: at(2) });
  });

  it("a person sees their own sessions' questions, never another owner's; an administrator sees every session", async () => {
    expect(ids(await read("alice"))).toEqual(["a1"]);
    expect(ids(await read("bob"))).toEqual(["b1"]);
    expect(ids(await read("carol"))).toEqual([]);
    expect(ids(await read(null))).toEqual(["a1", "b1", "l1"]);
    // Paging by another's cursor shows nothing of theirs either.
    const cursor = (await read(null)).entries[0]!.cursor;
    expect(ids(await read("bob", { after: cursor }))).toEqual(["b1"]);
  });

  it("one session, by id or title; another owner's answers as one that does not exist", async () => {
    expect(ids(await read("alice", { session: "sa" }))).toEqual(["a1"]);
    expect(ids(await read("alice", { session: "Deploys" }))).toEqual(["a1"]);
    expect(ids(await read(null, { session: "Bob's" }))).toEqual(["b1"]);
    for (const session of ["sb", "Bob's", "nothing"]) {
      await expect(read("alice", { session })).rejects.toMatchObject({ code: "not_found:session", message: expect.stringContaining(session) });
    }
  });

  it("a session being deleted is not listed, not even to an administrator", async () => {
    await fixture.chatSession.update({ where: { id: "sb" }, data: { deletedAt: T } });
    expect(ids(await read(null))).toEqual(["a1", "l1"]);
    await expect(read(null, { session: "sb" })).rejects.toMatchObject({ code: "not_found:session" });
  });
});

describe("what an entry says", () => {
  it("the person and the surface, in the words the CLI prints", async () => {
    await settled({ id: "a1", closedByUser: "alice" });
    await settled({ id: "l1", closedByUser: "local", closedBy: "cli", closedAt: at(1) });
    const [alice, local] = (await read(null)).entries;
    expect(alice).toMatchObject({
      id: "a1",
      sessionId: "sa",
      sessionTitle: "Deploys",
      runId: "r-sa",
      kind: "question",
      askedBy: "deploy",
      asked: "deploy asked: Ship a1?",
      status: "answered",
      answer: "yes",
      closedBy: "socket",
      via: "in a browser tab",
      person: "alice",
      ruleId: null,
      rule: null,
      votes: [],
      outcome: 'Answered "yes" by alice, in a browser tab',
      createdAt: at(-60_000).toISOString(),
      closedAt: T.toISOString(),
    });
    // The administrator by their display name: "Administrator" until renamed; the id stays in `person`.
    expect(local).toMatchObject({ person: "local", personName: "Administrator", outcome: 'Answered "yes" by Administrator, from the CLI' });
  });

  it("people by their display names once renamed, votes too", async () => {
    await fixture.user.create({ data: { id: "alice", addedBy: "local" } });
    await fixture.displayName.create({ data: { personId: "alice", name: "Ann" } });
    await fixture.displayName.create({ data: { personId: "local", name: "Boss" } });
    await settled({ id: "a1", closedByUser: "alice" });
    await settled({ id: "l1", closedByUser: "local", closedBy: "cli", closedAt: at(1) });
    await fixture.questionVote.create({ data: { questionId: "a1", userId: "local", decision: "allow", surface: "cli", createdAt: at(-1) } });
    const [alice, local] = (await read(null)).entries;
    expect(alice).toMatchObject({ person: "alice", personName: "Ann", outcome: 'Answered "yes" by Ann, in a browser tab', votes: [{ user: "local", name: "Boss" }] });
    expect(local).toMatchObject({ person: "local", personName: "Boss", outcome: 'Answered "yes" by Boss, from the CLI' });
  });

  it("the rule that decided, while it exists; its id once it is gone", async () => {
    await fixture.permissionRule.create({ data: { id: "rule1", sessionId: "sa", tool: "shell", pattern: "npm test*", decision: "allow", source: "manual" } });
    // A rule of another session with that id is not this question's rule.
    await fixture.permissionRule.create({ data: { id: "rule2", sessionId: "sb", tool: "shell", pattern: "*", decision: "allow", source: "manual" } });
    const byRule = { approval: shell("npm test"), closedBy: "rule", feedback: 'Allowed by the rule "shell npm test*".' };
    await settled({ id: "r1", ...byRule, closedByRule: "rule1" });
    await settled({ id: "r2", ...byRule, closedByRule: "rule2", closedAt: at(1) });
    await settled({ id: "r3", ...byRule, closedByRule: "gone", closedAt: at(2) });
    const [kept, foreign, gone] = (await read("alice")).entries;
    expect(kept).toMatchObject({ ruleId: "rule1", rule: { tool: "shell", pattern: "npm test*", decision: "allow", cwd: null }, person: null, outcome: "Allowed by rule “shell npm test*”" });
    expect(foreign).toMatchObject({ ruleId: "rule2", rule: null });
    expect(gone).toMatchObject({ ruleId: "gone", rule: null, outcome: "Allowed by rule “shell npm test*”", asked: "deploy asked to use shell: npm test" });
  });

  it("an edited input beside the one asked; the votes of the page's questions, in the order they came", async () => {
    await settled({ id: "e1", approval: shell("npm test --all"), editedInput: { command: "npm test" }, closedByUser: "alice" });
    await settled({ id: "v1", approval: shell("make deploy"), closedAt: at(1), closedByUser: "bob" });
    await settled({ id: "v2", approval: shell("make clean"), closedAt: at(2), status: "declined", closedByUser: "carol", feedback: "no" });
    await fixture.questionVote.create({ data: { questionId: "v1", userId: "bob", decision: "allow", surface: "cli", createdAt: at(-5) } });
    await fixture.questionVote.create({ data: { questionId: "v1", userId: "alice", decision: "allow", surface: "socket", createdAt: at(-9) } });
    await fixture.questionVote.create({ data: { questionId: "v2", userId: "carol", decision: "reject", surface: "push", feedback: "no", createdAt: at(-1) } });
    const [edited, voted, rejected] = (await read("alice")).entries;
    expect(edited).toMatchObject({ editedInput: { command: "npm test" }, originalInput: { command: "npm test --all" }, votes: [], outcome: "Allowed once (input edited) by alice, in a browser tab" });
    expect(voted!.votes).toEqual([
      { user: "alice", name: "alice", decision: "allow", at: at(-9).toISOString(), surface: "socket", feedback: null },
      { user: "bob", name: "bob", decision: "allow", at: at(-5).toISOString(), surface: "cli", feedback: null },
    ]);
    expect(voted!.originalInput).toBeNull();
    expect(rejected).toMatchObject({ votes: [{ user: "carol", decision: "reject", surface: "push", feedback: "no" }], outcome: "Rejected by carol, in a browser tab: no" });
    // Votes of questions outside the page are not read with it.
    expect((await read("alice", { limit: "1", after: edited!.cursor })).entries.map((e) => e.votes.length)).toEqual([2]);
  });
});
