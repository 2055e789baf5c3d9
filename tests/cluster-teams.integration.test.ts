import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionSnapshot } from "../lib/protocol/entities";
import type { Question } from "../lib/protocol/question";
import { clusterPrerequisites, startCluster, type Cluster } from "./helpers/cluster";
import { addPeople } from "./helpers/people";
import { eventOn, joinSession, openTab, poll, restClient, sendReply, type RestClient, type Tab } from "./helpers/remote";

// Teams on two real nodes (production servers) on one PostgreSQL database and one Redis: an
// approval that needs two of three people, voted on from both nodes at once, and an escalation
// step that one node's timers take, once, and the other node takes when that node is killed.
const prerequisites = await clusterPrerequisites();
if (!prerequisites.ok) console.warn(`[cluster-teams] SKIPPED: the multi-node team tests need PostgreSQL and Redis: ${prerequisites.reason}`);

const LEASE_MS = 1_500;
/** When carol may answer a question for bob too (from when it was asked). */
const STEP_MS = 2_000;
/** Approvals voted on at once, each asked by a new run (more: PARLEY_CLUSTER_VOTE_ROUNDS). */
const ROUNDS = Number(process.env.PARLEY_CLUSTER_VOTE_ROUNDS ?? 4);
const PEOPLE = ["alice", "bob", "carol"] as const;
type Person = (typeof PEOPLE)[number];

/** Every `event` a tab hears, in order. */
function heard(tab: Tab, event: "question.updated" | "question.replied"): Question[] {
  const seen: Question[] = [];
  tab.on(event, (q: Question) => void seen.push(q));
  return seen;
}

describe.skipIf(!prerequisites.ok)("teams on two nodes on PostgreSQL and Redis", () => {
  let cluster: Cluster;
  const tokens = {} as Record<Person, string>;
  const tabs: Tab[] = [];
  /** The administrator (the server token) on node `i`, or a person. */
  const rest = (i: number, person?: Person): RestClient => restClient(cluster.nodes[i]!.url, person ? { token: tokens[person] } : {});
  const tabOf = async (i: number, sessionId: string, person?: Person) => {
    const tab = await openTab(cluster.nodes[i]!.url, person ? { token: tokens[person] } : {});
    tabs.push(tab);
    const joined = await joinSession(tab, sessionId);
    if (!joined.ok) throw new Error(`${person ?? "the administrator"} could not join on node ${i}: ${joined.error.message}`);
    return tab;
  };
  /** The administrator's new chat on node `i`, shared with everyone. */
  const teamChat = async (i: number) => {
    const { id } = await rest(i).ok(rest(i).post<{ id: string }>("/api/sessions", {}));
    for (const user of PEOPLE) await rest(i).ok(rest(i).post(`/api/sessions/${id}/members`, { user }));
    return id;
  };
  const startRun = async (i: number, sessionId: string, fn: string, input: unknown) => (await rest(i).ok(rest(i).post<{ id: string }>(`/api/sessions/${sessionId}/runs`, { function: fn, input }))).id;
  const finished = (i: number, runId: string) =>
    poll(`run ${runId} finished`, async () => {
      const run = await rest(i).ok(rest(i).get<{ status: string; attempts: number; result: unknown }>(`/api/runs/${runId}`));
      return run.status === "succeeded" && run;
    });
  const questionOn = (i: number, id: string) => rest(i).ok(rest(i).get<Question>(`/api/questions/${id}`));
  /** The agent's lines of a run, as a tab joining now would show them. */
  const linesOf = async (sessionId: string, runId: string) =>
    (await rest(0).ok(rest(0).get<SessionSnapshot>(`/api/sessions/${sessionId}`))).messages.filter((m) => m.runId === runId && m.role === "agent").map((m) => m.text);

  const replyAs = (i: number, person: Person, id: string) => rest(i, person).post<{ outcome?: string; error?: { code: string } }>(`/api/questions/${id}/reply`, { value: "yes" });
  /** A question for bob that carol may answer too after STEP_MS, asked by a run on node `i`. */
  const askBob = async (i: number, sessionId: string, watcher: Tab, prompt: string) => {
    const asked = eventOn(watcher, "question.asked", (q) => q.prompt === prompt);
    const runId = await startRun(i, sessionId, "test.ask", { prompt, answerers: ["bob"], escalate: [{ after: `${STEP_MS}ms`, to: ["carol"] }] });
    const q = await asked;
    expect(q).toMatchObject({ runId, answerers: ["bob"], escalate: [{ afterMs: STEP_MS, to: ["carol"] }], escalated: 0 });
    // Not carol's to answer yet.
    expect((await replyAs(i, "carol", q.id)).body.error).toMatchObject({ code: "not_an_answerer" });
    return q;
  };

  beforeAll(async () => {
    cluster = await startCluster(2, { PARLEY_RUN_LEASE_MS: String(LEASE_MS), PARLEY_MAX_WORKERS: "2" });
    for (const person of await addPeople(cluster.db.url, [...PEOPLE])) tokens[person.name as Person] = person.token;
  }, 120_000);

  afterAll(async () => {
    for (const t of tabs) t.disconnect();
    await cluster?.close();
  }, 60_000);

  it(
    `2 of 3 approvers, voting at once from both nodes (${ROUNDS} rounds): one settlement at the second person, the run goes on once, both nodes' tabs retract it, the third person is late, bob's second vote counts nothing`,
    async () => {
      const sessionId = await teamChat(0);
      // Each person's tab on each node: personTabs[person][node].
      const personTabs = Object.fromEntries(await Promise.all(PEOPLE.map(async (p) => [p, await Promise.all([0, 1].map((i) => tabOf(i, sessionId, p)))]))) as Record<Person, Tab[]>;
      const allTabs = Object.values(personTabs).flat();
      const watcher = await tabOf(1, sessionId);

      for (let round = 0; round < ROUNDS; round++) {
        const asked = eventOn(watcher, "question.asked");
        // Asked by a run on node A.
        const runId = await startRun(0, sessionId, "test.team-tool", { tool: "shell", input: { command: `deploy ${round}` }, approvals: { required: 2, from: [...PEOPLE] } });
        const q = await asked;
        expect(q).toMatchObject({ runId, kind: "approval", status: "pending", approvals: { required: 2, from: [...PEOPLE] }, votes: [] });
        const updated = allTabs.map((t) => heard(t, "question.updated"));
        const replied = allTabs.map((t) => heard(t, "question.replied"));

        // Each person from their tab on one node (alternating by round), bob again by REST on the other node, all at once.
        const votes: Array<[Person, Promise<string>]> = PEOPLE.map((p, k) => {
          const node = (round + k) % 2;
          return [p, sendReply(personTabs[p][node]!, { id: q.id, value: "once" }).then((ack) => (ack.ok ? ack.data.outcome : ack.error.code))];
        });
        const bobRest = rest(round % 2, "bob");
        votes.push([
          "bob",
          bobRest.post<{ outcome?: string; error?: { code: string } }>(`/api/questions/${q.id}/reply`, { value: "once" }).then((r) => r.body.outcome ?? `${r.status} ${r.body.error?.code}`),
        ]);
        const outcomes = await Promise.all(votes.map(async ([p, o]) => [p, await o] as const));
        const of = (p: Person) => outcomes.filter(([who]) => who === p).map(([, o]) => o);

        const settled = await questionOn(1, q.id);
        expect(settled).toMatchObject({ status: "answered", answer: "once" });
        // Exactly at the second distinct person: two votes, the second one's settled it.
        expect(settled.votes.map((v) => v.decision)).toEqual(["allow", "allow"]);
        const [first, second] = settled.votes.map((v) => v.user as Person);
        expect(first).not.toBe(second);
        expect(settled.closedByUser).toBe(second);
        const third = PEOPLE.find((p) => p !== first && p !== second)!;
        expect(
          outcomes.filter(([, o]) => o === "answered"),
          JSON.stringify(outcomes),
        ).toEqual([[second, "answered"]]);
        expect(of(first!), JSON.stringify(outcomes)).toContain("voted");
        // The third person's vote comes too late: a receipt that says so (bob's both, when he is the third).
        expect(
          of(third).every((o) => o === "already_answered"),
          JSON.stringify(outcomes),
        ).toBe(true);
        // Whatever bob's second vote met, it counted nothing: voted (before the settlement) or late.
        expect(
          outcomes.every(([, o]) => ["voted", "answered", "already_answered"].includes(o)),
          JSON.stringify(outcomes),
        ).toBe(true);

        // The run goes on once, on node A.
        const run = await finished(0, runId);
        expect(run).toMatchObject({ attempts: 1, result: { outcome: "allowed" } });
        expect(await linesOf(sessionId, runId)).toEqual(["Allowed."]);
        // Every tab on both nodes heard the first vote counted, and the retraction once.
        await poll("every tab heard the vote and the retraction", () => replied.every((r) => r.length > 0) && updated.every((u) => u.some((x) => x.id === q.id && x.votes.length === 1)));
        for (const r of replied) expect(r.map((x) => [x.id, x.status, x.closedByUser])).toEqual([[q.id, "answered", second]]);
        for (const t of allTabs) t.removeAllListeners("question.updated").removeAllListeners("question.replied");
      }
    },
    30_000 + ROUNDS * 5_000,
  );

  it("an escalation step with both nodes running is taken once (whichever node asked): carol may answer from then on, and each of her tabs on either node hears it once", async () => {
    const sessionId = await teamChat(0);
    const carolTabs = await Promise.all([0, 1].map((i) => tabOf(i, sessionId, "carol")));
    const updated = carolTabs.map((t) => heard(t, "question.updated"));
    // One asked on each node: the one that keeps the timers, and the other (whose question the keeper's rounds take up).
    const asked = [await askBob(0, sessionId, carolTabs[0]!, "Refund asked on A?"), await askBob(1, sessionId, carolTabs[0]!, "Refund asked on B?")];

    await poll("both steps taken", () => updated.every((u) => asked.every((q) => u.some((x) => x.id === q.id))), 10_000);
    // A second taking of a step would be heard within a round of the timers' lease.
    await sleep(LEASE_MS);
    for (const u of updated) expect(u.map((x) => `${x.prompt} ${x.escalated}`).sort()).toEqual(["Refund asked on A? 1", "Refund asked on B? 1"]);
    for (const [i, q] of asked.entries()) {
      expect(await questionOn(1 - i, q.id)).toMatchObject({ status: "pending", escalated: 1 });
      // Carol answers on the node that did not ask.
      expect((await replyAs(1 - i, "carol", q.id)).body).toMatchObject({ outcome: "answered" });
    }
  }, 30_000);

  // Last: it leaves one node running.
  it("the node keeping the timers SIGKILLed before a step falls due: the other node takes the step, once, and carol's answer reaches the run", async () => {
    const healths = await Promise.all([0, 1].map((i) => rest(i).ok(rest(i).get<{ node: { expiryTimers: boolean } }>("/api/health"))));
    const keeper = healths.findIndex((h) => h.node.expiryTimers);
    expect(keeper).not.toBe(-1);
    const survivor = 1 - keeper;
    const sessionId = await teamChat(survivor);
    const carolTab = await tabOf(survivor, sessionId, "carol");
    const updated = heard(carolTab, "question.updated");
    const q = await askBob(survivor, sessionId, carolTab, "Refund after the crash?");

    // The keeper arms a step's timer in its first round (every third of a lease) with the step due within a lease: by then it has.
    await sleep(Date.parse(q.createdAt) + STEP_MS - LEASE_MS + LEASE_MS / 3 + 100 - Date.now());
    await cluster.nodes[keeper]!.kill("SIGKILL");
    expect((await questionOn(survivor, q.id)).escalated).toBe(0);

    // Once the dead node's lease on the timers lapses, the survivor's next round takes them up.
    await poll("the survivor took the step", () => updated.some((x) => x.id === q.id), LEASE_MS * 2 + 10_000);
    await sleep(LEASE_MS);
    expect(updated.map((x) => [x.id, x.escalated])).toEqual([[q.id, 1]]);
    expect(await questionOn(survivor, q.id)).toMatchObject({ status: "pending", escalated: 1 });
    const line = eventOn(carolTab, "message.created", (m) => m.runId === q.runId && m.role === "agent");
    expect((await replyAs(survivor, "carol", q.id)).body).toMatchObject({ outcome: "answered" });
    expect((await line).text).toContain('"yes"');
  }, 30_000);
});
