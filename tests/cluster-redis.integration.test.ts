import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createServer, connect as tcpConnect } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LOCAL_OWNER } from "../lib/protocol/access";
import type { ClusterMessage } from "../lib/protocol/cluster";
import { ReadySchema } from "../lib/protocol/health";
import type { MessageDelta } from "../lib/protocol/entities";
import type { ServerStatus } from "../lib/protocol/socket";
import { streamText } from "../workers/test-functions/probes";
import { setParley } from "../lib/server/registry";
import { GET as ready } from "../app/api/ready/route";
import { GET as health } from "../app/api/health/route";
import { servedAs } from "../lib/server/http/request-principal";
import { joinSession } from "./helpers/remote";
import { nextEvent, startTestApp, waitFor, type TestApp, type TestClient } from "./helpers/test-app";

/** The shared Redis (CI starts it); each test uses its own channel prefix on it. */
const SHARED_REDIS = process.env.PARLEY_TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Whether a Redis answers PING at host:port within a second. */
function redisAnswers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = tcpConnect({ host: hostname, port: Number(port || 6379) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => done(d.toString().startsWith("+PONG")));
  });
}

function hasRedisServer(): Promise<boolean> {
  return new Promise((resolve) => {
    const p = spawn("redis-server", ["--version"], { stdio: "ignore" });
    p.once("error", () => resolve(false));
    p.once("exit", (code) => resolve(code === 0));
  });
}

const sharedRedis = await redisAnswers(SHARED_REDIS);
const ownRedis = await hasRedisServer();
if (!sharedRedis) console.warn(`[cluster-redis] skipping cross-node delivery: no Redis answers at ${SHARED_REDIS} (start one, or set PARLEY_TEST_REDIS_URL)`);
if (!ownRedis) console.warn("[cluster-redis] skipping the Redis outage test: redis-server is not installed");

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** A throwaway redis-server of this test's own (never the shared one: others use it). */
async function startOwnRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await waitFor(() => redisAnswers(`redis://127.0.0.1:${port}`), 10_000);
  return child;
}
const stopOwnRedis = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });

/** Two nodes on one SQLite file and one Redis channel prefix. */
async function twoNodes(url: string) {
  const key = `parley-test-${randomUUID()}`;
  const a = await startTestApp({ redis: { url, key } });
  const b = await startTestApp({ redis: { url, key }, dir: a.dir });
  await waitFor(() => a.parley.cluster.status() === "connected" && b.parley.cluster.status() === "connected");
  return { a, b };
}

/** Every `server.status` a client hears, in order. */
function statuses(client: TestClient): ServerStatus[] {
  const seen: ServerStatus[] = [];
  client.on("server.status", (s) => seen.push(s));
  return seen;
}

const readyNow = async () => {
  const res = await ready(new Request("http://127.0.0.1/api/ready"), { params: Promise.resolve({}) });
  return { status: res.status, body: ReadySchema.parse(await res.json()) };
};

let apps: TestApp[] = [];
let redis: ChildProcess | null = null;
afterEach(async () => {
  setParley(undefined);
  // The second node shares the first one's folder: only the first removes it.
  for (const app of apps.reverse()) await app.close({ keepData: app !== apps.at(-1) });
  apps = [];
  if (redis) await stopOwnRedis(redis);
  redis = null;
});

describe.skipIf(!sharedRedis)("two nodes on one Redis", () => {
  it("a question asked on node A reaches a tab on node B, and a cluster message for B arrives only there", async () => {
    const { a, b } = await twoNodes(SHARED_REDIS);
    apps = [a, b];
    const session = await a.parley.sessions.createSession();
    const tabOnB = await b.client();
    expect((await joinSession(tabOnB, session.id)).ok).toBe(true);

    const asked = nextEvent(tabOnB, "question.asked");
    const run = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Which node?", options: ["a", "b"] } });
    expect(await asked).toMatchObject({ runId: run.id, prompt: "Which node?", sessionId: session.id });

    const onA: ClusterMessage[] = [];
    const onB: ClusterMessage[] = [];
    a.parley.cluster.on((m) => onA.push(m));
    b.parley.cluster.on((m) => onB.push(m));
    const message: ClusterMessage = { type: "question.expiring", to: b.parley.cluster.nodeId, id: `q-${randomUUID()}`, expiresAt: new Date(Date.now() + 600_000).toISOString() };
    expect(a.parley.cluster.publish(message)).toBe(true);
    await waitFor(() => onB.length > 0);
    expect(onB).toEqual([message]);
    expect(onA).toEqual([]);
  });

  it("a tab joining on node B while node A streams a reply gets the text so far in its snapshot, then the rest, then the stored message", async () => {
    const { a, b } = await twoNodes(SHARED_REDIS);
    apps = [a, b];
    const session = await a.parley.sessions.createSession();
    const tabOnA = await a.client();
    expect((await joinSession(tabOnA, session.id)).ok).toBe(true);
    let deltasOnA = 0;
    tabOnA.on("message.delta", () => deltasOnA++);
    const full = streamText(60).join("");
    const run = await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.stream", input: { words: 60, delayMs: 20 } });
    await waitFor(() => deltasOnA >= 10);

    const tabOnB = await b.client();
    const deltas: MessageDelta[] = [];
    tabOnB.on("message.delta", (d) => deltas.push(d));
    const created = nextEvent(tabOnB, "message.created");
    const joined = await joinSession(tabOnB, session.id);
    if (!joined.ok) throw new Error(joined.error.message);
    expect(joined.data.streaming).toHaveLength(1);
    const partial = joined.data.streaming![0]!;
    expect(partial).toMatchObject({ runId: run.id, seq: 0 });
    expect(partial.text.length).toBeGreaterThan(0);
    expect(partial.text.length).toBeLessThan(full.length);
    expect(full.startsWith(partial.text)).toBe(true);

    expect(await created).toMatchObject({ runId: run.id, role: "agent", text: full });
    let text = partial.text;
    for (const d of deltas) if (d.at === text.length) text += d.delta;
    expect(text).toBe(full);
    // Stored: no node streams it any more.
    const again = await joinSession(tabOnB, session.id);
    expect(again.ok && again.data.streaming).toEqual([]);
  });

  it("sharing on node A reaches bob's tab on node B at once; removing him on A makes his tab on B leave the session's room", async () => {
    const { a, b } = await twoNodes(SHARED_REDIS);
    apps = [a, b];
    await a.fixture.user.createMany({ data: ["alice", "bob"].map((id) => ({ id, addedBy: LOCAL_OWNER })) });
    const session = await a.parley.sessions.createSession({ ownerId: "alice" });
    const { token } = await b.parley.access.apiTokens.create({ ownerId: "bob", name: "bob on B" });
    const bobOnB = await b.client({ token });

    const shared = nextEvent(bobOnB, "session.updated");
    await a.parley.members.add({ sessionId: session.id, user: "bob", by: "alice" });
    expect(await shared).toMatchObject({ id: session.id, ownerId: "alice", shared: true });
    expect((await joinSession(bobOnB, session.id)).ok).toBe(true);

    const left = nextEvent(bobOnB, "session.left");
    await a.parley.members.remove({ sessionId: session.id, user: "bob" });
    expect(await left).toEqual({ id: session.id });

    // A question asked in it afterwards reaches alice's tab on A, not bob's on B.
    const aliceOnA = await a.client({ token: (await a.parley.access.apiTokens.create({ ownerId: "alice", name: "alice on A" })).token });
    expect((await joinSession(aliceOnA, session.id)).ok).toBe(true);
    const heardByBob: string[] = [];
    bobOnB.on("question.asked", (q) => heardByBob.push(q.prompt));
    const asked = nextEvent(aliceOnA, "question.asked");
    await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Just us?", options: ["yes", "no"] } });
    expect(await asked).toMatchObject({ prompt: "Just us?" });
    await new Promise((r) => setTimeout(r, 300));
    expect(heardByBob).toEqual([]);
  });

  it("tells each tab on connect that its node is connected", async () => {
    const { a, b } = await twoNodes(SHARED_REDIS);
    apps = [a, b];
    // Sent in the connection handler, right after the handshake: caught here by listening before the connect resolves.
    const [sa, sb] = await Promise.all(
      [a, b].map(async (app) => {
        const tab = await app.client();
        const seen = statuses(tab);
        // A reconnect-free way to hear it again: a second connect of the same socket.
        tab.disconnect().connect();
        await waitFor(() => seen.length > 0);
        return seen;
      }),
    );
    expect([sa![0], sb![0]]).toEqual([{ crossNode: "connected" }, { crossNode: "connected" }]);
  });
});

describe.skipIf(!ownRedis)("when Redis goes away", () => {
  it("both nodes say lost to their tabs, keep serving them, answer 503 on /api/ready, and come back when Redis does", async () => {
    const port = await freePort();
    redis = await startOwnRedis(port);
    const { a, b } = await twoNodes(`redis://127.0.0.1:${port}`);
    apps = [a, b];
    setParley(a.parley);
    expect(await readyNow()).toEqual({ status: 200, body: { ready: true } });

    const session = await a.parley.sessions.createSession();
    const tabOnA = await a.client();
    const tabOnB = await b.client();
    const seenA = statuses(tabOnA);
    const seenB = statuses(tabOnB);
    for (const tab of [tabOnA, tabOnB]) expect((await joinSession(tab, session.id)).ok).toBe(true);

    await stopOwnRedis(redis);
    redis = null;
    await waitFor(() => seenA.at(-1)?.crossNode === "lost" && seenB.at(-1)?.crossNode === "lost");
    expect(a.parley.cluster.status()).toBe("lost");
    expect(b.parley.cluster.status()).toBe("lost");
    expect(await readyNow()).toEqual({ status: 503, body: { ready: false } });
    // Signed in, /api/health says why.
    const signedIn = { ownerId: LOCAL_OWNER, via: "server_token", credential: "server", admin: true } as const;
    const res = await servedAs(signedIn, () => health(new Request("http://127.0.0.1/api/health"), { params: Promise.resolve({}) }));
    expect(await res.json()).toMatchObject({ redis: "lost", database: { ok: true, engine: "sqlite" } });

    // Node A still serves its own tab: the publish fails quietly, the local delivery goes on.
    expect(a.parley.cluster.publish({ type: "run.stop", to: b.parley.cluster.nodeId, runId: "r", reason: "x" })).toBe(false);
    const askedOnA = nextEvent(tabOnA, "question.asked");
    await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Still here?", options: ["yes"] } });
    expect(await askedOnA).toMatchObject({ prompt: "Still here?" });

    redis = await startOwnRedis(port);
    await waitFor(() => seenA.at(-1)?.crossNode === "connected" && seenB.at(-1)?.crossNode === "connected", 15_000);
    expect(await readyNow()).toEqual({ status: 200, body: { ready: true } });
    // Resubscribed: cross-node delivery works again.
    const askedOnB = nextEvent(tabOnB, "question.asked");
    const session2 = await a.parley.sessions.createSession();
    expect((await joinSession(tabOnB, session2.id)).ok).toBe(true);
    await a.parley.runs.startRun({ sessionId: session2.id, functionName: "test.ask", input: { prompt: "Back?", options: ["yes"] } });
    expect(await askedOnB).toMatchObject({ prompt: "Back?" });
  }, 60_000);
});
