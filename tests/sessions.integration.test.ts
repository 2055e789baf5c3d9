import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Session } from "../lib/protocol/entities";
import type { Question } from "../lib/protocol/question";
import { addPeople } from "./helpers/people";
import { eventOn, joinSession as join, openTab, poll, restClient, type RestClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/** Renaming and deleting chats against the production build, over REST and real sockets. */

const TIMEOUT = 60_000;
let dir: string;
let server: ServerProcess;
let rest: RestClient;
const tabs: Tab[] = [];

async function tab(): Promise<Tab> {
  const t = await openTab(server.url);
  tabs.push(t);
  return t;
}
const newSession = async () => rest.ok(rest.post<Session>("/api/sessions", {}));
const call = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${server.url}${p}`, {
    method,
    headers: { authorization: `Bearer ${"test-token-0123456789abcdef"}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as unknown as any };
};

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-sessions-"));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db"), env: { PARLEY_STOP_GRACE_MS: "1000" } });
  rest = restClient(server.url);
}, TIMEOUT);
afterAll(async () => {
  for (const t of tabs) t.disconnect();
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("renaming a chat", () => {
  it(
    "PATCH renames it, every tab of the owner hears session.updated, and a later first message does not retitle it",
    async () => {
      const s = await newSession();
      const [a, b] = [await tab(), await tab()];
      const heard = [a, b].map((t) => eventOn(t, "session.updated", (u) => u.id === s.id && u.title === "Groceries"));
      const res = await call("PATCH", `/api/sessions/${s.id}`, { title: "  Groceries  " });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: s.id, title: "Groceries" });
      await Promise.all(heard);
      await rest.ok(rest.post(`/api/sessions/${s.id}/messages`, { text: "hello there" }));
      expect((await call("GET", `/api/sessions/${s.id}`)).body.session.title).toBe("Groceries");
    },
    TIMEOUT,
  );

  it(
    "refuses an empty, too long, multi-line or extra-keyed title with 400, and an unknown chat with 404",
    async () => {
      const s = await newSession();
      for (const body of [{ title: "   " }, { title: "x".repeat(201) }, { title: "two\nlines" }, { title: "ok", extra: 1 }, {}]) {
        const res = await call("PATCH", `/api/sessions/${s.id}`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBeTruthy();
      }
      expect((await call("PATCH", `/api/sessions/no-such-chat`, { title: "x" })).status).toBe(404);
    },
    TIMEOUT,
  );

  it(
    "a slash command that starts a function titles a chat after it; /help does not title it",
    async () => {
      const s = await newSession();
      await rest.ok(rest.post(`/api/sessions/${s.id}/messages`, { text: "/help" }));
      expect((await call("GET", `/api/sessions/${s.id}`)).body.session.title).toBe("New chat");
      const t = await newSession();
      await rest.ok(rest.post(`/api/sessions/${t.id}/messages`, { text: "/report" }));
      expect((await call("GET", `/api/sessions/${t.id}`)).body.session.title).toBe("Write report");
    },
    TIMEOUT,
  );
});

describe("another owner", () => {
  it(
    "cannot rename or delete a chat that is not theirs (404, as for no chat), and does not hear it deleted",
    async () => {
      const s = await newSession();
      const { token } = (await addPeople(`file:${path.join(dir, "p.db")}`, ["ann"]))[0]!;
      const ann = restClient(server.url, { token });
      const annTab = await openTab(server.url, { token });
      tabs.push(annTab);
      const annHeard: string[] = [];
      annTab.on("session.deleted", ({ id }) => annHeard.push(id));
      const asAnn = (method: string, body?: unknown) =>
        fetch(`${server.url}/api/sessions/${s.id}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
      expect((await asAnn("PATCH", { title: "mine now" })).status).toBe(404);
      expect((await asAnn("DELETE")).status).toBe(404);
      expect((await call("GET", `/api/sessions/${s.id}`)).body.session.title).toBe("New chat");
      expect((await ann.get("/api/sessions")).body).toEqual([]);
      const ownerTab = await tab();
      const heard = eventOn(ownerTab, "session.deleted", (d) => d.id === s.id);
      expect((await call("DELETE", `/api/sessions/${s.id}`)).status).toBe(200);
      await heard;
      await new Promise((r) => setTimeout(r, 200));
      expect(annHeard).toEqual([]);
    },
    TIMEOUT,
  );
});

describe("deleting a chat", () => {
  it(
    "retracts its pending question (cancelled) in two joined tabs before session.deleted, ends its run cancelled, then every route answers 404",
    async () => {
      const s = await newSession();
      const [a, b] = [await tab(), await tab()];
      expect((await join(a, s.id)).ok).toBe(true);
      expect((await join(b, s.id)).ok).toBe(true);
      const asked = eventOn(a, "question.asked");
      const run = await rest.ok(rest.post<Run>(`/api/sessions/${s.id}/runs`, { function: "test.ask", input: { prompt: "Size?", options: ["S", "M"] } }));
      const question = await asked;

      // What each tab hears, in order.
      const heard = [a, b].map((t) => {
        const log: string[] = [];
        t.on("question.rejected", (q) => log.push(`rejected:${q.id}:${q.status}`));
        t.on("session.deleted", ({ id }) => log.push(`deleted:${id}`));
        return log;
      });
      const deletedSeen = [a, b].map((t) => eventOn(t, "session.deleted", (d) => d.id === s.id));
      const res = await call("DELETE", `/api/sessions/${s.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ id: s.id, deleted: true });
      await Promise.all(deletedSeen);
      for (const log of heard) expect(log).toEqual([`rejected:${question.id}:cancelled`, `deleted:${s.id}`]);

      for (const [method, p, body] of [
        ["GET", `/api/sessions/${s.id}`],
        ["PATCH", `/api/sessions/${s.id}`, { title: "x" }],
        ["DELETE", `/api/sessions/${s.id}`],
        ["POST", `/api/sessions/${s.id}/messages`, { text: "hi" }],
        ["GET", `/api/sessions/${s.id}/runs`],
        ["POST", `/api/sessions/${s.id}/runs`, { function: "test.ask" }],
        ["GET", `/api/sessions/${s.id}/rules`],
        ["POST", `/api/sessions/${s.id}/rules`, { tool: "shell", pattern: "ls*", decision: "allow" }],
        ["GET", `/api/runs/${run.id}`],
        ["POST", `/api/runs/${run.id}/stop`, {}],
        ["GET", `/api/questions/${question.id}`],
        ["POST", `/api/questions/${question.id}/reply`, { value: "S" }],
      ] as const) {
        const r = await call(method, p, body);
        expect(r.status, `${method} ${p}`).toBe(404);
      }
      const rejoin = await join(a, s.id);
      expect(rejoin).toMatchObject({ ok: false, error: { code: "not_found:session" } });
      const list = await rest.ok(rest.get<Session[]>("/api/sessions"));
      expect(list.map((x) => x.id)).not.toContain(s.id);
    },
    TIMEOUT,
  );

  it(
    "the run it stopped ended cancelled before it was removed",
    async () => {
      const s = await newSession();
      const t = await tab();
      expect((await join(t, s.id)).ok).toBe(true);
      const asked = eventOn(t, "question.asked");
      const run = await rest.ok(rest.post<Run>(`/api/sessions/${s.id}/runs`, { function: "test.ask", input: { prompt: "Go?" } }));
      await asked;
      const ended = eventOn(t, "run.updated", (r) => r.id === run.id && r.status !== "running" && r.status !== "waiting_input");
      const deleting = call("DELETE", `/api/sessions/${s.id}`);
      expect((await ended).status).toBe("cancelled");
      expect((await deleting).status).toBe(200);
    },
    TIMEOUT,
  );

  it(
    "two deletes at once: one deletes, the other is told 404; the owner hears session.deleted once",
    async () => {
      const s = await newSession();
      const t = await tab();
      let told = 0;
      t.on("session.deleted", ({ id }) => id === s.id && told++);
      const statuses = (await Promise.all([1, 2, 3].map(() => call("DELETE", `/api/sessions/${s.id}`)))).map((r) => r.status).sort();
      expect(statuses).toEqual([200, 404, 404]);
      await new Promise((r) => setTimeout(r, 300));
      expect(told).toBe(1);
    },
    TIMEOUT,
  );

  it(
    "run starts and chat messages racing the delete never leave a run in the deleted chat",
    async () => {
      for (let round = 0; round < 5; round++) {
        const s = await newSession();
        // A question pending makes the delete take a moment (its run is stopped first).
        const first = await rest.ok(rest.post<Run>(`/api/sessions/${s.id}/runs`, { function: "test.ask", input: { prompt: "Wait?" } }));
        await poll("the question", async () => (await rest.get<Question[]>(`/api/questions?session_id=${s.id}`)).body.length === 1);
        const starts = Array.from({ length: 9 }, (_, i) =>
          i % 3 === 0
            ? call("POST", `/api/sessions/${s.id}/runs`, { function: "test.ask", input: { prompt: `Race ${i}?` } })
            : i % 3 === 1
              ? call("POST", `/api/sessions/${s.id}/runs`, { function: "test.stamp" })
              : call("POST", `/api/sessions/${s.id}/messages`, { text: `message ${i}` }),
        );
        const deleting = call("DELETE", `/api/sessions/${s.id}`);
        const later = Array.from({ length: 4 }, () => call("POST", `/api/sessions/${s.id}/runs`, { function: "test.ask", input: { prompt: "Late?" } }));
        const results = await Promise.all([...starts, ...later]);
        expect((await deleting).status).toBe(200);
        // Started, not found (the delete came first) or busy (a message while the question waits): never a 5xx.
        for (const r of results) expect([201, 404, 409]).toContain(r.status);
        // Every run that did start is gone with the chat, and none outlives it.
        for (const r of results.filter((x) => x.status === 201 && x.body.id)) expect((await call("GET", `/api/runs/${r.body.id}`)).status).toBe(404);
        expect((await call("GET", `/api/runs/${first.id}`)).status).toBe(404);
        expect((await call("GET", `/api/sessions/${s.id}/runs`)).status).toBe(404);
      }
      // In the database itself: no run, question or message belongs to a chat that is gone or being deleted.
      const db = new Database(path.join(dir, "p.db"), { readonly: true });
      try {
        const orphans = (table: string) => (db.prepare(`SELECT count(*) AS n FROM "${table}" WHERE sessionId NOT IN (SELECT id FROM ChatSession WHERE deletedAt IS NULL)`).get() as { n: number }).n;
        expect([orphans("Run"), orphans("Question"), orphans("Message")]).toEqual([0, 0, 0]);
      } finally {
        db.close();
      }
      const health = await rest.ok(rest.get<{ liveRuns: number; pendingQuestions: number }>("/api/health"));
      expect(health.pendingQuestions).toBe(0);
      await poll("no live runs", async () => (await rest.ok(rest.get<{ liveRuns: number }>("/api/health"))).liveRuns === 0);
    },
    TIMEOUT,
  );
});
