import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { addPeople } from "./helpers/people";
import { eventOn, joinSession, openTab, poll, restClient, sendReject, sendReply, type RestClient, type Tab } from "./helpers/remote";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { suiteServer } from "./helpers/suite-server";

/** Several people on one shared chat, against the production server: who may answer, votes, escalation. */

const suite = suiteServer("teams");
const PEOPLE = ["bob", "carol", "dave"] as const;
type Person = (typeof PEOPLE)[number];
const tokens = {} as Record<Person, string>;
const rest = {} as Record<Person, RestClient>;
const tabs: Tab[] = [];

/** The people, each with an API token. */
async function addTeam(databaseFile: string): Promise<void> {
  for (const person of await addPeople(`file:${databaseFile}`, [...PEOPLE])) tokens[person.name as Person] = person.token;
}

/** The administrator's chat `title`, shared with everyone. */
async function teamChat(client: RestClient, title: string): Promise<string> {
  const { id } = await client.ok(client.post<{ id: string }>("/api/sessions", { title }));
  for (const user of PEOPLE) await client.ok(client.post(`/api/sessions/${id}/members`, { user }));
  return id;
}

const ask = async (client: RestClient, body: Record<string, unknown>) => client.ok(client.post<Question>("/api/asks", { from: "release", session: "team", ...body }));

async function tabOf(person: Person, sessionId: string, url = suite.server.url): Promise<Tab> {
  const tab = await openTab(url, { token: tokens[person] });
  tabs.push(tab);
  const joined = await joinSession(tab, sessionId);
  if (!joined.ok) throw new Error(`${person} could not join: ${joined.error.message}`);
  return tab;
}

let sessionId: string;

beforeAll(async () => {
  await addTeam(path.join(suite.dir, "p.db"));
  for (const name of PEOPLE) rest[name] = restClient(suite.server.url, { token: tokens[name] });
  sessionId = await teamChat(suite.rest, "team");
}, 60_000);

afterAll(() => {
  for (const tab of tabs) tab.disconnect();
});

describe("who may answer", { timeout: 60_000 }, () => {
  it("a question for carol is refused to everyone else from every surface with 403 not_an_answerer, and changes nothing; carol's answer settles it for every tab", async () => {
    const q = await ask(suite.rest, { question: "Ship 2.0?", options: ["yes", "no"], answerers: ["carol"] });
    expect(q).toMatchObject({ answerers: ["carol"], status: "pending" });
    const bobTab = await tabOf("bob", sessionId);
    const carolTab = await tabOf("carol", sessionId);
    // REST (and a notification's button, which is REST), over a socket as a tab and as a terminal, a decline.
    const viaRest = await rest.bob.post(`/api/questions/${q.id}/reply`, { value: "yes" });
    expect(viaRest.status).toBe(403);
    expect(viaRest.body.error).toMatchObject({ code: "not_an_answerer", message: expect.stringContaining("carol") });
    const fromPush = await fetch(`${suite.server.url}/api/questions/${q.id}/reply`, {
      method: "POST",
      headers: { ...authHeaders(tokens.bob), "content-type": "application/json", "x-parley-surface": "push" },
      body: JSON.stringify({ value: "yes" }),
    });
    expect(fromPush.status).toBe(403);
    expect(await sendReply(bobTab, { id: q.id, value: "yes" })).toMatchObject({ ok: false, error: { code: "not_an_answerer" } });
    expect(await sendReject(bobTab, { id: q.id, message: "no" })).toMatchObject({ ok: false, error: { code: "not_an_answerer" } });
    const terminal = await openTab(suite.server.url, { token: tokens.dave });
    tabs.push(terminal);
    expect(await sendReply(terminal, { id: q.id, value: "no" })).toMatchObject({ ok: false, error: { code: "not_an_answerer" } });
    // The administrator is a person too: not named, not an answerer.
    expect((await suite.rest.post(`/api/questions/${q.id}/reply`, { value: "no" })).body.error).toMatchObject({ code: "not_an_answerer" });
    // Typed in the chat, and from a text channel: refused in words, not applied.
    const typed = await rest.bob.ok(rest.bob.post<{ outcome: string; reply: { text: string } }>(`/api/sessions/${sessionId}/messages`, { text: `/answer yes` }));
    expect(typed.outcome).toBe("refused");
    const channel = await rest.dave.ok(rest.dave.post<{ outcome: string; reply: string }>("/api/channels/text", { sessionId, from: "Dave (SMS)", text: "no" }));
    expect(channel.outcome).toBe("refused");
    expect(channel.reply).toContain("carol");
    expect((await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${q.id}`))).status).toBe("pending");

    const heard = eventOn(bobTab, "question.replied", (r) => r.id === q.id);
    expect(await sendReply(carolTab, { id: q.id, value: "yes" })).toMatchObject({ ok: true, data: { outcome: "answered" } });
    expect(await heard).toMatchObject({ status: "answered", answer: "yes", closedByUser: "carol", closedBy: "socket" });
  });

  it("a stranger still learns nothing: 404, as for an unknown id", async () => {
    const q = await ask(suite.rest, { question: "Private?" });
    const [mallory] = await addPeople(`file:${path.join(suite.dir, "p.db")}`, ["mallory"]);
    const asMallory = restClient(suite.server.url, { token: mallory!.token });
    expect((await asMallory.post(`/api/questions/${q.id}/reply`, { value: "x" })).status).toBe(404);
    await suite.rest.ok(suite.rest.post(`/api/questions/${q.id}/reply`, { value: "fine" }));
  });
});

describe("an approval that needs two of three", { timeout: 60_000 }, () => {
  it("bob's two tabs count once; carol and dave voting at once settle it once, at the second person; every tab sees each vote and the retraction", async () => {
    const q = await ask(suite.rest, { kind: "approval", tool_name: "drop_table", input: { table: "users" }, approvals: { required: 2, from: [...PEOPLE] } });
    expect(q).toMatchObject({ kind: "approval", status: "pending", approvals: { required: 2, from: [...PEOPLE], rejections: 1 }, votes: [] });
    const [bob1, bob2, carol, dave] = await Promise.all([tabOf("bob", sessionId), tabOf("bob", sessionId), tabOf("carol", sessionId), tabOf("dave", sessionId)]);
    const counted = eventOn(dave, "question.updated", (u) => u.id === q.id && u.votes.length === 1);
    const first = await sendReply(bob1, { id: q.id, value: "once", commandId: "bob-1" });
    expect(first).toMatchObject({ ok: true, data: { outcome: "voted", question: { status: "pending", votes: [{ user: "bob", decision: "allow" }] } } });
    expect((await counted).votes).toEqual([expect.objectContaining({ user: "bob", decision: "allow" })]);
    const again = await sendReply(bob2, { id: q.id, value: "once", commandId: "bob-2" });
    expect(again).toMatchObject({ ok: true, data: { outcome: "voted" } });
    if (again.ok) expect(again.data.question.votes).toHaveLength(1);

    const retracted = [bob1, bob2, carol, dave].map((tab) => eventOn(tab, "question.replied", (r) => r.id === q.id));
    const [c, d] = await Promise.all([sendReply(carol, { id: q.id, value: "once" }), sendReply(dave, { id: q.id, value: "once" })]);
    const outcomes = [c, d].map((a) => (a.ok ? a.data.outcome : a.error.code)).sort();
    expect(outcomes).toEqual(["already_answered", "answered"]);
    for (const r of await Promise.all(retracted)) expect(r).toMatchObject({ status: "answered", answer: "once" });
    const settled = await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${q.id}`));
    expect(settled.votes).toHaveLength(2);
    expect(settled.votes[0]!.user).toBe("bob");
    expect(settled.closedByUser).toBe(settled.votes[1]!.user);
  });

  it("one rejection rejects with its feedback", async () => {
    const q = await ask(suite.rest, { kind: "approval", tool_name: "drop_table", input: { table: "orders" }, approvals: { required: 2, from: [...PEOPLE] } });
    await rest.bob.ok(rest.bob.post(`/api/questions/${q.id}/reply`, { value: "once" }));
    const no = await rest.carol.ok(rest.carol.post<{ outcome: string }>(`/api/questions/${q.id}/reject`, { message: "not during the sale" }));
    expect(no.outcome).toBe("declined");
    expect(await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${q.id}`))).toMatchObject({ status: "declined", feedback: "not during the sale", closedByUser: "carol" });
  });
});

describe("escalation", { timeout: 90_000 }, () => {
  let dir: string;
  let server: ServerProcess | undefined;
  beforeAll(() => void (dir = mkdtempSync(path.join(tmpdir(), "parley-escalate-"))));
  afterAll(async () => {
    await server?.kill();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a step that fell due while no server ran is taken when one starts: carol may answer then, not before", async () => {
    const databaseFile = path.join(dir, "e.db");
    const port = await freePort();
    server = await startServerProcess({ port, databaseFile });
    await addTeam(databaseFile);
    const admin = restClient(server.url);
    await teamChat(admin, "refunds");
    const q = await ask(admin, { session: "refunds", question: "Approve the refund?", answerers: ["bob"], escalate: [{ after: "2s", to: ["carol"] }] });
    const carol = restClient(server.url, { token: tokens.carol });
    expect((await carol.post(`/api/questions/${q.id}/reply`, { value: "yes" })).status).toBe(403);
    await server.kill("SIGKILL");
    server = undefined;
    await new Promise((r) => setTimeout(r, 2_500));
    server = await startServerProcess({ port, databaseFile });
    const escalated = await poll("the escalation", async () => {
      const read = await admin.ok(admin.get<Question>(`/api/questions/${q.id}`));
      return read.escalated === 1 ? read : undefined;
    });
    expect(escalated).toMatchObject({ status: "pending", escalate: [{ afterMs: 2000, to: ["carol"] }] });
    expect(await carol.ok(carol.post<{ outcome: string }>(`/api/questions/${q.id}/reply`, { value: "yes" }))).toMatchObject({ outcome: "answered" });
  });
});
