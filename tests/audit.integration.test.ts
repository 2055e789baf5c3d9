import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditEntry, AuditPage } from "../lib/protocol/audit";
import type { RunDetail } from "../lib/protocol/entities";
import type { PermissionRule } from "../lib/protocol/permissions";
import type { Question } from "../lib/protocol/question";
import { createApiToken } from "./helpers/api-token";
import { addPeople } from "./helpers/people";
import { isFinalStatus, joinSession, openTab, poll, restClient, sendReply, type RestClient } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

/**
 * The audit over the production build: questions settled from a browser tab (a socket), over
 * REST, by a session rule and from the CLI (recorded while no server ran) are each listed with
 * their surface, in the order they closed, to whoever may see their session; `parley audit --json`
 * prints the same page.
 */

const root = path.resolve(import.meta.dirname, "..");
const TIMEOUT = 90_000;
let dir: string;
let dbFile: string;
let server: ServerProcess;
let rest: RestClient;

const start = async () => {
  server = await startServerProcess({ port: await freePort(), databaseFile: dbFile });
  rest = restClient(server.url);
};

async function parley(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${dbFile}`], {
      env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "", TZ: "UTC" },
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/** Starts a run of `fn` in the session and resolves with the question it asks (none: the run ended first, and its detail). */
async function asked(client: RestClient, sessionId: string, fn: string, input: unknown): Promise<{ question: Question | null; runId: string }> {
  const run = await client.ok(client.post<{ id: string }>(`/api/sessions/${sessionId}/runs`, { function: fn, input }));
  return poll(`a question of ${fn}`, async () => {
    const detail = (await client.get<RunDetail>(`/api/runs/${run.id}`)).body;
    if (detail.pendingQuestions[0]) return { question: detail.pendingQuestions[0], runId: run.id };
    return isFinalStatus(detail.status) ? { question: null, runId: run.id } : undefined;
  });
}

const settledIn = (client: RestClient, runId: string) =>
  poll(`the run ${runId} to end`, async () => {
    const detail = (await client.get<RunDetail>(`/api/runs/${runId}`)).body;
    return isFinalStatus(detail.status) && detail;
  });

const page = async (client: RestClient, query = "") => client.ok(client.get<AuditPage>(`/api/audit${query}`));

let sessionId: string;
let annSessionId: string;
let annToken: string;
let rule: PermissionRule;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-audit-"));
  dbFile = path.join(dir, "p.db");
  await start();
  const session = await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "Deploys" }));
  sessionId = session.id;

  // A browser tab answers.
  const fromTab = await asked(rest, sessionId, "test.ask", { prompt: "Which region?", options: ["eu", "us"] });
  const tab = await openTab(server.url);
  expect(await joinSession(tab, sessionId)).toMatchObject({ ok: true });
  expect(await sendReply(tab, { id: fromTab.question!.id, value: "eu" })).toMatchObject({ ok: true, data: { outcome: "answered" } });
  tab.disconnect();
  await settledIn(rest, fromTab.runId);

  // A script rejects over REST.
  const overRest = await asked(rest, sessionId, "test.ask", { prompt: "Ship it?", options: ["yes", "no"] });
  await rest.ok(rest.post(`/api/questions/${overRest.question!.id}/reject`, { message: "not on a Friday" }));
  await settledIn(rest, overRest.runId);

  // A session rule decides an approval: nobody is asked.
  rule = await rest.ok(rest.post<PermissionRule>(`/api/sessions/${sessionId}/rules`, { tool: "shell", pattern: "npm test*", decision: "allow" }));
  const byRule = await asked(rest, sessionId, "test.tool", { tool: "shell", input: { command: "npm test" } });
  expect(byRule.question).toBeNull();

  // The CLI answers while no server runs; the server applies it when it starts again.
  const fromCli = await asked(rest, sessionId, "test.ask", { prompt: "Which size?", options: ["s", "m"] });
  await server.kill("SIGTERM");
  const sent = await parley("send-input", fromCli.runId, fromCli.question!.pendingId, "--value-json", '"m"', "--wait", "0", "--json");
  expect(JSON.parse(sent.stdout)).toMatchObject({ apply_state: "queued" });
  await start();
  await settledIn(rest, fromCli.runId);

  // Another person's session, answered by them over REST.
  annToken = (await addPeople(`file:${dbFile}`, ["ann"]))[0]!.token;
  const ann = restClient(server.url, { token: annToken });
  annSessionId = (await ann.ok(ann.post<{ id: string }>("/api/sessions", { title: "Ann's" }))).id;
  const annAsked = await asked(ann, annSessionId, "test.ask", { prompt: "Coffee?", options: ["yes", "no"] });
  await ann.ok(ann.post(`/api/questions/${annAsked.question!.id}/reply`, { value: "yes" }));
  await settledIn(ann, annAsked.runId);
}, TIMEOUT);

afterAll(async () => {
  await server?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("GET /api/audit", () => {
  it("lists each settled question with its surface, in the order they closed, to the administrator across sessions", { timeout: TIMEOUT }, async () => {
    const { entries, next } = await page(rest);
    expect(next).toBeNull();
    // `person` keeps the administrator's id; what a person reads names them by their display name.
    expect(entries.map((e) => [e.sessionTitle, e.asked, e.status, e.closedBy, e.via, e.person, e.outcome])).toEqual([
      ["Deploys", "test.ask asked: Which region?", "answered", "socket", "in a browser tab", "local", 'Answered "eu" by Administrator, in a browser tab'],
      ["Deploys", "test.ask asked: Ship it?", "declined", "rest", "over REST", "local", "Declined by Administrator, over REST: not on a Friday"],
      ["Deploys", "test.tool asked to use shell: npm test", "answered", "rule", "by a rule", null, "Allowed by rule “shell npm test*”"],
      // The CLI's commands left in the database are the administrator's.
      ["Deploys", "test.ask asked: Which size?", "answered", "cli", "from the CLI", "local", 'Answered "m" by Administrator, from the CLI'],
      ["Ann's", "test.ask asked: Coffee?", "answered", "rest", "over REST", "ann", 'Answered "yes" by ann, over REST'],
    ]);
    const [, , byRule] = entries as [AuditEntry, AuditEntry, AuditEntry];
    expect(byRule).toMatchObject({
      kind: "approval",
      askedBy: "test.tool",
      ruleId: rule.id,
      rule: { tool: "shell", pattern: "npm test*", decision: "allow", cwd: null },
      feedback: 'Allowed by the rule "shell npm test*".',
      votes: [],
    });
    for (const e of entries) expect(Date.parse(e.closedAt)).toBeGreaterThanOrEqual(Date.parse(e.createdAt));
  });

  it("pages by the cursor it returns, and one session by its id or title", { timeout: TIMEOUT }, async () => {
    const all = (await page(rest)).entries.map((e) => e.id);
    const seen: string[] = [];
    let query = "?limit=2";
    for (;;) {
      const p = await page(rest, query);
      seen.push(...p.entries.map((e) => e.id));
      if (!p.next) break;
      query = `?limit=2&after=${encodeURIComponent(p.next)}`;
    }
    expect(seen).toEqual(all);
    expect((await page(rest, `?session=${sessionId}`)).entries).toHaveLength(4);
    expect((await page(rest, `?session=${encodeURIComponent("Ann's")}`)).entries.map((e) => e.sessionId)).toEqual([annSessionId]);
  });

  it("shows a person only their own sessions; another's answers as one that does not exist", { timeout: TIMEOUT }, async () => {
    const ann = restClient(server.url, { token: annToken });
    expect((await page(ann)).entries.map((e) => [e.sessionId, e.asked])).toEqual([[annSessionId, "test.ask asked: Coffee?"]]);
    for (const session of [sessionId, "Deploys"]) {
      const res = await ann.get(`/api/audit?session=${encodeURIComponent(session)}`);
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({ code: "not_found:session" });
    }
  });

  it("refuses a bad query with 400 saying what it takes, a token that may only ask with 403, no credential with 401", { timeout: TIMEOUT }, async () => {
    for (const [query, message] of [
      ["?limit=0", "Invalid audit query: limit: a whole number from 1 to 500"],
      ["?limit=501", "Invalid audit query: limit: a whole number from 1 to 500"],
      ["?after=yesterday", "Invalid audit query: after: an ISO time (2026-12-05T10:00:00Z) or the `next` cursor of a page"],
      ["?owner=ann", 'Invalid audit query: Unrecognized key: "owner"'],
    ]) {
      const res = await rest.get(`/api/audit${query}`);
      expect([res.status, res.body.error]).toEqual([400, { code: "bad_request", message }]);
    }
    const askOnly = restClient(server.url, { token: await createApiToken(dbFile, "ci", ["--scope", "ask"]) });
    const refused = await askOnly.get("/api/audit");
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "forbidden", message: expect.stringMatching(/scope ask/) });
    expect((await restClient(server.url, { token: null }).get("/api/audit")).status).toBe(401);
  });
});

describe("parley audit", () => {
  it("prints the same entries as the API (--json), and a line each as text", { timeout: TIMEOUT }, async () => {
    const json = await parley("audit", "--json");
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(await page(rest));

    const text = await parley("audit", "--session", "Deploys", "--limit", "3");
    expect(text.code).toBe(0);
    const lines = text.stdout.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} {2}test\.ask asked: Which region\? {2}→ {2}Answered "eu" by Administrator, in a browser tab$/);
    expect(lines[2]).toMatch(/ {2}test\.tool asked to use shell: npm test {2}→ {2}Allowed by rule “shell npm test\*”$/);
    expect(lines[3]).toMatch(/^More: parley audit --session 'Deploys' --limit 3 --after c1\.[A-Za-z0-9_-]+$/);
    const after = lines[3]!.split(" --after ")[1]!;
    const rest2 = await parley("audit", "--session", "Deploys", "--after", after);
    expect(rest2.stdout.trim()).toMatch(/test\.ask asked: Which size\? {2}→ {2}Answered "m" by Administrator, from the CLI$/);
  });
});
