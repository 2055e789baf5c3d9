import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Session } from "../lib/protocol/entities";
import type { Question } from "../lib/protocol/question";
import type { SessionMembers } from "../lib/protocol/teams";
import { eventOn, joinSession, openTab, poll, restClient, sendReply, type RestClient, type Tab } from "./helpers/remote";
import { addPeople, type Person } from "./helpers/people";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/** Shared sessions over the production build, REST and real sockets: alice shares a chat with bob; carol is a stranger. */

const TIMEOUT = 90_000;
let dir: string;
let server: ServerProcess;
const tabs: Tab[] = [];
let alice: RestClient;
let bob: RestClient;
let carol: RestClient;
let people: Record<string, Person>;

async function tabOf(person: Person): Promise<Tab> {
  const t = await openTab(server.url, { token: person.token });
  tabs.push(t);
  return t;
}

/** A PATCH, which the REST client has no method for. */
async function rename(person: Person, sessionId: string, title: string) {
  const res = await fetch(`${server.url}/api/sessions/${sessionId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${person.token}`, "content-type": "application/json" },
    body: JSON.stringify({ title }),
  });
  return { status: res.status, body: (await res.json()) as { error?: { code: string; message: string } } };
}

const names = (members: SessionMembers) => members.members.map((m) => `${m.role}:${m.user}`);

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-members-"));
  const databaseFile = path.join(dir, "p.db");
  server = await startServerProcess({ port: await freePort(), databaseFile, env: { PARLEY_STOP_GRACE_MS: "1000" } });
  people = Object.fromEntries((await addPeople(`file:${databaseFile}`, ["alice", "bob", "carol"])).map((p) => [p.name, p]));
  const as = (name: string) => restClient(server.url, { token: people[name]!.token });
  [alice, bob, carol] = [as("alice"), as("bob"), as("carol")];
}, TIMEOUT);
afterAll(async () => {
  for (const t of tabs) t.disconnect();
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("a shared session", () => {
  it(
    "appears in bob's open tab at once; his joined tab gets the card, his answer settles it for alice's tab, and alice's reply after is already_answered",
    async () => {
      const session = await alice.ok(alice.post<Session>("/api/sessions", { title: "Trip" }));
      const [aliceTab, bobTab] = [await tabOf(people.alice!), await tabOf(people.bob!)];
      expect(await bob.ok(bob.get<Session[]>("/api/sessions"))).toEqual([]);

      const bobHears = eventOn(bobTab, "session.updated", (s) => s.id === session.id);
      const added = await alice.post<SessionMembers>(`/api/sessions/${session.id}/members`, { user: "bob" });
      expect(added.status).toBe(201);
      expect(names(added.body)).toEqual(["owner:alice", "member:bob"]);
      expect(await bobHears).toMatchObject({ id: session.id, ownerId: "alice", title: "Trip", shared: true });
      expect((await bob.ok(bob.get<Session[]>("/api/sessions"))).map((s) => [s.id, s.ownerId, s.shared])).toEqual([[session.id, "alice", true]]);
      // Adding him again changes nothing; so does adding its owner.
      expect(names(await alice.ok(alice.post<SessionMembers>(`/api/sessions/${session.id}/members`, { user: "bob" })))).toEqual(["owner:alice", "member:bob"]);
      expect(names(await alice.ok(alice.post<SessionMembers>(`/api/sessions/${session.id}/members`, { user: "alice" })))).toEqual(["owner:alice", "member:bob"]);
      // His browser (its session cookie) sees it too.
      const byCookie = await fetch(`${server.url}/api/sessions/${session.id}/members`, { headers: { cookie: people.bob!.cookie.header } });
      expect(byCookie.status).toBe(200);

      expect(await joinSession(bobTab, session.id)).toMatchObject({ ok: true });
      expect(await joinSession(aliceTab, session.id)).toMatchObject({ ok: true });
      const cards = [aliceTab, bobTab].map((t) => eventOn(t, "question.asked", (q) => q.sessionId === session.id));
      await alice.ok(alice.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Where to?", options: ["Rome", "Oslo"] } }));
      const [seenByAlice, seenByBob] = (await Promise.all(cards)) as [Question, Question];
      expect(seenByBob.id).toBe(seenByAlice.id);

      const retracted = eventOn(aliceTab, "question.replied", (q) => q.id === seenByBob.id);
      const bobAnswer = await sendReply(bobTab, { id: seenByBob.id, value: "Rome", digest: seenByBob.targetDigest });
      expect(bobAnswer).toMatchObject({ ok: true, data: { outcome: "answered" } });
      expect(await retracted).toMatchObject({ status: "answered", answer: "Rome" });
      const aliceLate = await sendReply(aliceTab, { id: seenByAlice.id, value: "Oslo", digest: seenByAlice.targetDigest });
      expect(aliceLate).toMatchObject({ ok: true, data: { outcome: "already_answered", question: { answer: "Rome" } } });
    },
    TIMEOUT,
  );

  it(
    "a stranger gets 404 on it, its questions and its runs, exactly as for unknown ids; a member may neither rename, delete nor share it (403)",
    async () => {
      const session = await alice.ok(alice.post<Session>("/api/sessions", {}));
      await alice.ok(alice.post(`/api/sessions/${session.id}/members`, { user: "bob" }));
      const run = await alice.ok(alice.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Ours?" } }));
      const [question] = await poll("the question", async () => {
        const pending = (await alice.get<Question[]>(`/api/questions?session_id=${session.id}`)).body;
        return pending.length > 0 && pending;
      });

      for (const [pathname, code, id] of [
        [`/api/sessions/${session.id}`, "not_found:session", session.id],
        [`/api/sessions/${session.id}/members`, "not_found:session", session.id],
        [`/api/questions?session_id=${session.id}`, "not_found:session", session.id],
        [`/api/questions/${question!.id}`, "not_found:question", question!.id],
        [`/api/runs/${run.id}`, "not_found:run", run.id],
      ] as const) {
        const res = await carol.get(pathname);
        expect(res.status, pathname).toBe(404);
        expect(res.body.error).toEqual({ code, message: `No ${code.slice("not_found:".length)} with id "${id}".` });
        // What bob, a member, reads.
        expect((await bob.get(pathname)).status, pathname).toBe(200);
      }
      for (const [pathname, body] of [
        [`/api/questions/${question!.id}/reply`, { value: "theirs" }],
        [`/api/runs/${run.id}/stop`, {}],
        [`/api/sessions/${session.id}/members`, { user: "carol" }],
        [`/api/sessions/${session.id}/messages`, { text: "hi" }],
      ] as const) {
        expect((await carol.post(pathname, body)).status, pathname).toBe(404);
      }
      expect((await carol.del(`/api/sessions/${session.id}/members/carol`)).status).toBe(404);
      const carolTab = await tabOf(people.carol!);
      expect(await joinSession(carolTab, session.id)).toMatchObject({ ok: false, error: { code: "not_found:session" } });

      const refused = await bob.del(`/api/sessions/${session.id}`);
      expect(refused.status).toBe(403);
      expect(refused.body.error).toEqual({ code: "forbidden", message: "Only this chat's owner (alice) or an administrator may delete this chat." });
      expect((await rename(people.bob!, session.id, "Bob's now")).body.error?.code).toBe("forbidden");
      expect((await bob.post(`/api/sessions/${session.id}/members`, { user: "carol" })).status).toBe(403);
      expect((await bob.del(`/api/sessions/${session.id}/members/alice`)).status).toBe(403);
      // Someone who is no person is named.
      const nobody = await alice.post(`/api/sessions/${session.id}/members`, { user: "nobody" });
      expect(nobody.status).toBe(404);
      expect(nobody.body.error.code).toBe("not_found:person");
      expect(nobody.body.error.message).toContain('"nobody"');
      // Its owner may do all of it (the run's question goes first).
      expect((await rename(people.alice!, session.id, "Ours")).status).toBe(200);
      expect((await alice.del(`/api/sessions/${session.id}`)).status).toBe(200);
    },
    TIMEOUT,
  );

  it(
    "who may stop a run: its starter and the chat's owner; another member gets 403 forbidden (and the run goes on); an administrator may",
    async () => {
      const [erin] = await addPeople(`file:${path.join(dir, "p.db")}`, ["erin"], { admin: true });
      const asErin = restClient(server.url, { token: erin!.token });
      const session = await alice.ok(alice.post<Session>("/api/sessions", {}));
      for (const user of ["bob", "carol", "erin"]) await alice.ok(alice.post(`/api/sessions/${session.id}/members`, { user }));
      const start = (who: RestClient) => who.ok(who.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Stop me?" } }));

      const bobs = await start(bob);
      expect(bobs).toMatchObject({ ownerId: "alice", starterId: "bob" });
      const refused = await carol.post(`/api/runs/${bobs.id}/stop`, {});
      expect(refused).toMatchObject({ status: 403, body: { error: { code: "forbidden", message: "Only bob, who started it, this chat's owner (alice) or an administrator may stop this run." } } });
      expect((await alice.ok(alice.get<Run>(`/api/runs/${bobs.id}`))).status).not.toBe("cancelled");
      expect(await bob.ok(bob.post(`/api/runs/${bobs.id}/stop`, {}))).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });

      const another = await start(bob);
      expect(await alice.ok(alice.post(`/api/runs/${another.id}/stop`, {}))).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
      const third = await start(carol);
      expect((await bob.post(`/api/runs/${third.id}/stop`, {})).status).toBe(403);
      expect(await asErin.ok(asErin.post(`/api/runs/${third.id}/stop`, {}))).toMatchObject({ status: "cancelled", receipt: { outcome: "stopped" } });
    },
    TIMEOUT,
  );

  it(
    "an administrator who is a member may rename, share and delete it, as its owner may",
    async () => {
      const [dora] = await addPeople(`file:${path.join(dir, "p.db")}`, ["dora"], { admin: true });
      const asDora = restClient(server.url, { token: dora!.token });
      const session = await alice.ok(alice.post<Session>("/api/sessions", {}));
      await alice.ok(alice.post(`/api/sessions/${session.id}/members`, { user: "dora" }));

      expect((await rename(dora!, session.id, "Dora's now")).status).toBe(200);
      expect(names(await asDora.ok(asDora.post<SessionMembers>(`/api/sessions/${session.id}/members`, { user: "carol" })))).toEqual(["owner:alice", "member:dora", "member:carol"]);
      expect(names(await asDora.ok(asDora.del<SessionMembers>(`/api/sessions/${session.id}/members/carol`)))).toEqual(["owner:alice", "member:dora"]);
      expect((await asDora.del(`/api/sessions/${session.id}`)).status).toBe(200);
    },
    TIMEOUT,
  );

  it(
    "removing bob drops it from his tabs (session.left), his joined tab hears nothing more of it, and he gets 404 after; leaving is his own removal; a delete reaches him",
    async () => {
      const session = await alice.ok(alice.post<Session>("/api/sessions", {}));
      await alice.ok(alice.post(`/api/sessions/${session.id}/members`, { user: "bob" }));
      const [aliceTab, bobShows, bobList] = [await tabOf(people.alice!), await tabOf(people.bob!), await tabOf(people.bob!)];
      expect(await joinSession(bobShows, session.id)).toMatchObject({ ok: true });
      expect(await joinSession(aliceTab, session.id)).toMatchObject({ ok: true });

      const bobHeard: string[] = [];
      bobShows.on("message.created", (m) => m.sessionId === session.id && bobHeard.push(m.text));
      bobShows.on("question.asked", (q) => q.sessionId === session.id && bobHeard.push(q.prompt));
      const left = [bobShows, bobList].map((t) => eventOn(t, "session.left", (e) => e.id === session.id));
      const unshared = eventOn(aliceTab, "session.updated", (s) => s.id === session.id && !s.shared);
      expect(names(await alice.ok(alice.del<SessionMembers>(`/api/sessions/${session.id}/members/bob`)))).toEqual(["owner:alice"]);
      await Promise.all(left);
      await unshared;

      // Said in the session after: alice's tab hears it, bob's does not.
      const aliceHears = eventOn(aliceTab, "question.asked", (q) => q.sessionId === session.id);
      await alice.ok(alice.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Private now?" } }));
      await aliceHears;
      await new Promise((r) => setTimeout(r, 300));
      expect(bobHeard).toEqual([]);
      expect((await bob.get(`/api/sessions/${session.id}`)).status).toBe(404);
      expect((await bob.ok(bob.get<Session[]>("/api/sessions"))).map((s) => s.id)).not.toContain(session.id);
      expect(await joinSession(bobShows, session.id)).toMatchObject({ ok: false, error: { code: "not_found:session" } });
      // Removing him again changes nothing.
      expect((await alice.del(`/api/sessions/${session.id}/members/bob`)).status).toBe(200);

      // Leaving: a member removes themselves.
      await alice.ok(alice.post(`/api/sessions/${session.id}/members`, { user: "bob" }));
      const leftAgain = eventOn(bobList, "session.left", (e) => e.id === session.id);
      expect(names(await bob.ok(bob.del<SessionMembers>(`/api/sessions/${session.id}/members/bob`)))).toEqual(["owner:alice"]);
      await leftAgain;

      // Its delete reaches every member's tabs.
      await alice.ok(alice.post(`/api/sessions/${session.id}/members`, { user: "bob" }));
      const deleted = eventOn(bobList, "session.deleted", (e) => e.id === session.id);
      await alice.ok(alice.del(`/api/sessions/${session.id}`));
      await deleted;
    },
    TIMEOUT,
  );
});
