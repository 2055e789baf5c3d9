import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { clusterPrerequisites, startCluster, type Cluster } from "./helpers/cluster";
import { eventOn, joinSession, openTab, poll, restClient, sendReply, type Tab } from "./helpers/remote";
import { authHeaders, TEST_TOKEN } from "./helpers/server-process";
import { disconnectOf, expectHeardPromptly } from "./helpers/timing";

// Several real nodes (production servers, their own worker processes) on one PostgreSQL database
// and one Redis: what a tab on one node sees of a run on another, one winner per question across
// nodes, a node killed with live and parked runs, and Redis going away mid-run.
const prerequisites = await clusterPrerequisites();
if (!prerequisites.ok) console.warn(`[cluster] SKIPPED: the multi-node tests need PostgreSQL and Redis: ${prerequisites.reason}`);

/** Questions raced (npm run test:long: 1000). */
const RACES = Number(process.env.PARLEY_CLUSTER_RACES ?? 200);
const LEASE_MS = 1_500;

describe.skipIf(!prerequisites.ok)("several nodes on PostgreSQL and Redis", () => {
  let cluster: Cluster;
  const tabs: Tab[] = [];
  const tab = async (url: string, sessionId: string) => {
    const t = await openTab(url);
    tabs.push(t);
    const joined = await joinSession(t, sessionId);
    if (!joined.ok) throw new Error(JSON.stringify(joined));
    return t;
  };
  const rest = (i: number) => restClient(cluster.nodes[i]!.url);
  const newSession = async (i = 0) => (await rest(i).ok(rest(i).post<{ id: string }>("/api/sessions", {}))).id;
  const startRun = async (i: number, sessionId: string, fn: string, input: unknown = {}) =>
    (await rest(i).ok(rest(i).post<{ id: string }>(`/api/sessions/${sessionId}/runs`, { function: fn, input }))).id;
  const getRun = async (i: number, id: string) => rest(i).ok(rest(i).get<{ status: string; attempts: number; result: unknown }>(`/api/runs/${id}`));
  const pendingOf = async (i: number, runId: string) => {
    const { pendingQuestions } = await rest(i).ok(rest(i).get<{ pendingQuestions: Question[] }>(`/api/runs/${runId}`));
    return pendingQuestions[0];
  };

  beforeAll(async () => {
    cluster = await startCluster(2, { PARLEY_PARK_AFTER_MS: "300", PARLEY_RUN_LEASE_MS: String(LEASE_MS), PARLEY_MAX_WORKERS: "2" });
  }, 120_000);

  afterAll(async () => {
    for (const t of tabs) t.disconnect();
    await cluster?.close();
  }, 60_000);

  it("a question asked on node A shows in a tab on node B; B's answer resumes the run on A; the retraction and the next line reach both", async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const sessionId = await newSession(0);
    const onA = await tab(a.url, sessionId);
    const onB = await tab(b.url, sessionId);
    const askedOnB = eventOn(onB, "question.asked");
    const askedOnA = eventOn(onA, "question.asked");
    const runId = await startRun(0, sessionId, "test.ask", { prompt: "Which region?", options: ["eu", "us"] });
    const question = await askedOnB;
    expect(question.runId).toBe(runId);
    await askedOnA;

    const retracted = eventOn(onA, "question.replied", (q) => q.id === question.id);
    const lineOnA = eventOn(onA, "message.created", (m) => m.runId === runId && m.role === "agent");
    const lineOnB = eventOn(onB, "message.created", (m) => m.runId === runId && m.role === "agent");
    const ack = await sendReply(onB, { id: question.id, value: "eu" });
    expect(ack.ok && ack.data.outcome).toBe("answered");
    expect((await retracted).answer).toBe("eu");
    expect((await lineOnA).text).toContain('"eu"');
    expect((await lineOnB).text).toContain('"eu"');
    await poll("the run's end", async () => (await getRun(1, runId)).status === "succeeded");
  });

  it("each node reports its database, Redis and itself; exactly one keeps the expiry timers", async () => {
    const healths = await Promise.all(
      [0, 1].map((i) => rest(i).ok(rest(i).get<{ database: { ok: boolean; engine: string }; redis: string; node: { id: string; expiryTimers: boolean } }>("/api/health"))),
    );
    expect(healths.map((h) => [h.database.ok, h.database.engine, h.redis])).toEqual([
      [true, "postgresql", "connected"],
      [true, "postgresql", "connected"],
    ]);
    expect(new Set(healths.map((h) => h.node.id)).size).toBe(2);
    expect(healths.filter((h) => h.node.expiryTimers)).toHaveLength(1);
    for (const i of [0, 1]) expect((await fetch(`${cluster.nodes[i]!.url}/api/ready`)).status).toBe(200);
  });

  it("signing out everywhere on node A refuses a cookie on node B and disconnects its tab there, told over Redis", async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const signIn = await fetch(`${a.url}/?token=${TEST_TOKEN}`, { redirect: "manual" });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    expect((await fetch(`${b.url}/api/sessions`, { headers: { cookie } })).status).toBe(200);
    const onB = connect(b.url, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    await new Promise<void>((resolve, reject) => {
      onB.once("connect", () => resolve());
      onB.once("connect_error", reject);
    });
    const dropped = disconnectOf(onB);

    const res = await fetch(`${a.url}/api/auth/sign-out-everywhere`, { method: "POST", headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(res.status).toBe(200);
    // Sooner than node B's own rounds (the epoch read at most a second ago, its sockets checked every 10 s):
    // within a prompt step of node A's answer, beside a plain round trip to node B begun then.
    await expectHeardPromptly(b.url, dropped, { since: performance.now(), what: "node A answered" });
    expect((await fetch(`${b.url}/api/sessions`, { headers: { cookie } })).status).toBe(401);
    expect((await fetch(`${b.url}/api/sessions`, { headers: authHeaders() })).status).toBe(200);
  });

  it(`${RACES} reply races split across the two nodes: exactly one winner each`, async () => {
    const sessions = await Promise.all(Array.from({ length: Math.ceil(RACES / 50) }, (_, i) => newSession(i % 2)));
    const runIds: string[] = [];
    for (let i = 0; i < RACES; i += 50) {
      runIds.push(
        ...(await Promise.all(Array.from({ length: Math.min(50, RACES - i) }, (_, j) => startRun((i + j) % 2, sessions[Math.floor((i + j) / 50)]!, "test.ask", { prompt: `Race ${i + j}?` })))),
      );
    }
    const questions = await poll(
      `${RACES} questions pending`,
      async () => {
        const all = (await Promise.all(sessions.map((s, i) => rest(i % 2).ok(rest(i % 2).get<Question[]>(`/api/questions?session_id=${s}`))))).flat();
        return all.length === RACES && all;
      },
      180_000,
      500,
    );
    const receipts = await Promise.all(
      questions.flatMap((q) => [0, 1].map((i) => rest(i).post<{ outcome?: string; error?: { code: string } }>(`/api/questions/${q.id}/reply`, { value: `node ${i}` }))),
    );
    const byQuestion = new Map<string, string[]>();
    receipts.forEach((r, k) => {
      const id = questions[Math.floor(k / 2)]!.id;
      byQuestion.set(id, [...(byQuestion.get(id) ?? []), `${r.status}:${r.body?.outcome ?? r.body?.error?.code}`]);
    });
    const winners = [...byQuestion.values()].map((outcomes) => outcomes.filter((o) => o === "200:answered").length);
    expect(winners.filter((w) => w !== 1)).toEqual([]);
    // The loser hears why, never silence.
    expect(
      [...byQuestion.values()]
        .flat()
        .filter((o) => o !== "200:answered")
        .every((o) => /already|late|closed|409/.test(o)),
    ).toBe(true);
    // Every run goes on with the answer that won, on whichever node.
    await poll(
      "every raced run finished",
      async () => {
        const done = await Promise.all(runIds.slice(0, 50).map((id) => getRun(0, id)));
        return done.every((r) => r.status === "succeeded");
      },
      120_000,
      500,
    );
  }, 400_000);

  it("SIGKILL of a node with a live and a parked run: the other node resumes the parked run when it is answered, and takes the live one over when its lease lapses", async () => {
    const doomed = await cluster.addNode({ PARLEY_PARK_AFTER_MS: "300" });
    const index = cluster.nodes.indexOf(doomed);
    const sessionId = await newSession(index);
    const parked = await startRun(index, sessionId, "test.ask", { prompt: "Parked?" });
    const question = await poll("the parked run's question", () => pendingOf(index, parked));
    await poll("the run parked", async () => {
      const health = await rest(index).ok(rest(index).get<{ liveRuns: number }>("/api/health"));
      return health.liveRuns === 0;
    });
    const otherSession = await newSession(index);
    const live = await startRun(index, otherSession, "test.busy", { workMs: 3_000 });
    await poll("the live run's first step", async () => {
      const detail = await rest(index).ok(rest(index).get<{ journal: Array<{ kind: string }> }>(`/api/runs/${live}`));
      return detail.journal.some((e) => e.kind === "say");
    });

    await doomed.kill("SIGKILL");

    const survivor = 0;
    const watcher = await tab(cluster.nodes[survivor]!.url, sessionId);
    const line = eventOn(watcher, "message.created", (m) => m.runId === parked && m.role === "agent", 20_000);
    const receipt = await rest(survivor).ok(rest(survivor).post<{ outcome: string }>(`/api/questions/${question.id}/reply`, { value: "resumed" }));
    expect(receipt.outcome).toBe("answered");
    expect((await line).text).toContain('"resumed"');
    await poll("the parked run finished on the survivor", async () => (await getRun(survivor, parked)).status === "succeeded", 20_000);

    const taken = await poll(
      "the live run taken over",
      async () => {
        const run = await getRun(survivor, live);
        return run.status === "succeeded" && run;
      },
      LEASE_MS * 4 + 15_000,
      200,
    );
    expect(taken.attempts).toBe(2);
  }, 90_000);

  it("Redis restarted mid-run: both nodes say so, keep serving their own tabs, and a run asked on one and answered on the other still goes on", async () => {
    const [a, b] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
    const sessionId = await newSession(0);
    const onA = await tab(a.url, sessionId);
    const onB = await tab(b.url, sessionId);
    const lostA = eventOn(onA, "server.status" as never, (s: { crossNode: string }) => s.crossNode === "lost", 20_000);
    const lostB = eventOn(onB, "server.status" as never, (s: { crossNode: string }) => s.crossNode === "lost", 20_000);
    await cluster.redis.stop();
    await Promise.all([lostA, lostB]);
    // A load balancer stops sending this node new clients; the tabs it has stay.
    expect((await fetch(`${a.url}/api/ready`)).status).toBe(503);

    // Node A's own tab still sees its run's question at once.
    const asked = eventOn(onA, "question.asked");
    const runId = await startRun(0, sessionId, "test.ask", { prompt: "During the outage?" });
    const question = await asked;
    // Answered on node B: the run on A goes on (it finds the answer when its park timer fires).
    const line = eventOn(onA, "message.created", (m) => m.runId === runId && m.role === "agent", 20_000);
    const receipt = await rest(1).ok(rest(1).post<{ outcome: string }>(`/api/questions/${question.id}/reply`, { value: "still works" }));
    expect(receipt.outcome).toBe("answered");
    expect((await line).text).toContain('"still works"');

    const backA = eventOn(onA, "server.status" as never, (s: { crossNode: string }) => s.crossNode === "connected", 20_000);
    const backB = eventOn(onB, "server.status" as never, (s: { crossNode: string }) => s.crossNode === "connected", 20_000);
    await cluster.redis.start();
    await Promise.all([backA, backB]);
    expect((await fetch(`${b.url}/api/ready`)).status).toBe(200);
    // Cross-node updates flow again.
    const askedOnB = eventOn(onB, "question.asked", () => true, 20_000);
    await startRun(0, sessionId, "test.ask", { prompt: "After the outage?" });
    expect((await askedOnB).prompt).toBe("After the outage?");
  }, 90_000);
});
