import { startSlackStandIn } from "./helpers/slack-stand-in";
import { startSmtpStandIn } from "./helpers/smtp-stand-in";
import { createECDH, randomBytes } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createApiTokens } from "../lib/server/access/api-tokens";
import { createDb } from "../lib/server/store/db/client";
import { migrateDatabase } from "../lib/server/store/db/migrate";
import { migrationNames, migrationsPrefix } from "./helpers/migrations";
import { openRawPostgres, openRawSqlite, type RawDb } from "./helpers/raw-db";
import { isFinalStatus, joinSession, openTab, poll, restClient, sendReply } from "./helpers/remote";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { createPgDatabase, pgReachable } from "./helpers/test-db";
import { fillDatabase, readDataset, rowsKept, type Dataset } from "./helpers/upgrade-data";

/**
 * Upgrades from every earlier schema: for each prefix of each engine's migrations, a database at
 * that schema is filled with rows in every table (what the current server wrote through a real
 * scenario, cut to the columns that schema has; made-up rows for a table the scenario does not
 * reach), then migrated (every row and value kept) and started by the current server (every
 * session readable, the pending question replayed to a tab, answered, and its run finished).
 * A migration added later is covered by the migrations folder alone.
 *
 * `npm test` starts the server from three schemas of each engine: the first (every migration on
 * old rows), the one before the current (the usual upgrade) and the current (nothing to apply);
 * from the others it checks the migration alone. PARLEY_UPGRADE_STARTS=all (`npm run test:long`)
 * starts it from every schema.
 */

const root = path.resolve(import.meta.dirname, "..");
const MIGRATIONS = path.join(root, "prisma/migrations");
const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";
const EVERY_START = process.env.PARLEY_UPGRADE_STARTS === "all";
type Engine = "sqlite" | "postgresql";

const cleanups: Array<() => Promise<void> | void> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** A database of the engine (empty, or migrated with the first `count` migrations), with what opens it raw and copies it. */
interface Db {
  url: string;
  dir: string;
  raw(): Promise<RawDb>;
  copy(): Promise<Db>;
  drop(): Promise<void>;
}

async function newSqlite(): Promise<Db> {
  const dir = mkdtempSync(path.join(tmpdir(), "parley-upgrade-"));
  const file = path.join(dir, "data", "parley.db");
  const db: Db = {
    url: `file:${file}`,
    dir,
    raw: async () => openRawSqlite(file),
    async copy() {
      const other = await newSqlite();
      const target = path.join(other.dir, "data", "parley.db");
      cpSync(path.dirname(file), path.dirname(target), { recursive: true });
      return other;
    },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
  cleanups.push(db.drop);
  return db;
}

async function newPostgres(): Promise<Db> {
  const made = await createPgDatabase(PG_URL, "parley_upgrade", { migrate: false });
  const name = new URL(made.url).pathname.slice(1);
  const dir = mkdtempSync(path.join(tmpdir(), "parley-upgrade-pg-"));
  const db: Db = {
    url: made.url,
    dir,
    raw: () => openRawPostgres(made.url),
    async copy() {
      const other = await newPostgres();
      const otherName = new URL(other.url).pathname.slice(1);
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      try {
        await admin.query(`DROP DATABASE "${otherName}"`);
        await admin.query(`CREATE DATABASE "${otherName}" TEMPLATE "${name}"`);
      } finally {
        await admin.end();
      }
      return other;
    },
    drop: async () => {
      await made.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  cleanups.push(db.drop);
  return db;
}

const newDatabase = (engine: Engine) => (engine === "sqlite" ? newSqlite() : newPostgres());

/** A migrations root holding the first `count` of the engine's migrations. */
function prefixRoot(engine: Engine, count: number): string {
  const dir = mkdtempSync(path.join(tmpdir(), "parley-prefix-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return migrationsPrefix(dir, engine, count);
}

async function startServer(db: Db, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess({ port: await freePort(), databaseFile: path.join(db.dir, "unused.db"), env: { DATABASE_URL: db.url, PARLEY_PUSH_HOSTS: "127.0.0.1:1", ...env } });
  cleanups.push(() => server.kill());
  return server;
}

/** What the scenario made that the checks after an upgrade look for. */
interface Facts {
  sessions: string[];
  pending: { id: string; runId: string; sessionId: string; targetDigest: string };
}

/**
 * Rows in every table, written by the current server through its API: two chats with messages, a
 * chat turn, a finished run with its answered question, a run waiting on a pending question,
 * commands with receipts, a rule, an API token, the server's settings, an ask's delivered callback,
 * a push subscription with a muted chat and the pushes of the pending question, a person with
 * their sign-in link, the chat shared with them and a vote on an approval that needs them too, and
 * the questions' Slack messages and mails (to local stand-ins of Slack and a mail server).
 */
async function writeScenario(engine: Engine): Promise<{ dataset: Dataset; facts: Facts }> {
  const db = await newDatabase(engine);
  await migrateDatabase(db.url, MIGRATIONS);
  const [slack, smtp] = await Promise.all([startSlackStandIn(), startSmtpStandIn()]);
  cleanups.push(
    () => slack.close(),
    () => smtp.close(),
  );
  const server = await startServer(db, {
    PARLEY_SLACK_BOT_TOKEN: "xoxb-upgrade-1",
    PARLEY_SLACK_SIGNING_SECRET: "0123456789abcdef0123456789abcdef",
    PARLEY_SLACK_API_URL: slack.url,
    PARLEY_SMTP_URL: smtp.url,
    PARLEY_EMAIL_FROM: "parley@example.com",
    PARLEY_PUBLIC_URL: "https://parley.example",
  });
  const rest = restClient(server.url);
  const settled = (sessionId: string) =>
    poll(`the runs of ${sessionId} to end`, async () => {
      const runs = await rest.ok(rest.get<Array<{ status: string }>>(`/api/sessions/${sessionId}/runs`));
      return runs.length > 0 && runs.every((run) => isFinalStatus(run.status));
    });
  const pendingOf = (sessionId: string) => poll(`a question in ${sessionId}`, async () => (await rest.ok(rest.get<Facts["pending"][]>(`/api/questions?session_id=${sessionId}`)))[0], 20_000);

  const first = await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "Before the upgrade" }));
  await rest.ok(rest.post(`/api/sessions/${first.id}/messages`, { text: "hello" }));
  await settled(first.id);
  const answered = await rest.ok(rest.post<{ id: string }>(`/api/sessions/${first.id}/runs`, { function: "test.journal", commandId: "upgrade-start-1" }));
  const question = await pendingOf(first.id);
  await rest.ok(rest.post(`/api/questions/${question.id}/reply`, { value: "blue", digest: question.targetDigest, commandId: "upgrade-reply-1" }));
  await poll("the answered run to finish", async () => (await rest.ok(rest.get<{ status: string }>(`/api/runs/${answered.id}`))).status === "succeeded");
  await rest.ok(rest.post(`/api/sessions/${first.id}/rules`, { tool: "run_command", pattern: "npm test", decision: "allow" }));
  // An ask with a callback, answered: its webhook delivery, taken by a receiver on loopback.
  const hook = createServer((req, res) => req.resume().on("end", () => res.writeHead(204).end()));
  await new Promise<void>((resolve) => hook.listen(0, "127.0.0.1", resolve));
  const callbackUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
  const asked = await rest.ok(rest.post<{ id: string }>("/api/asks", { question: "Upgrade now?", from: "upgrade-script", callbackUrl }));
  await rest.ok(rest.post(`/api/questions/${asked.id}/reply`, { value: "yes" }));
  await poll("the callback delivered", async () => (await rest.ok(rest.get<{ deliveries: Array<{ status: string }> }>(`/api/questions/${asked.id}`))).deliveries[0]?.status === "delivered");
  hook.close();

  // A device subscribed (its push service never answers: the pushes stay in the outbox) and the first chat muted.
  const p256dh = createECDH("prime256v1").generateKeys().toString("base64url");
  const endpoint = "https://127.0.0.1:1/push/upgrade";
  await rest.ok(rest.post("/api/push/subscriptions", { endpoint, keys: { p256dh, auth: randomBytes(16).toString("base64url") }, device: "Upgrade phone" }));
  expect((await fetch(`${server.url}/api/sessions/${first.id}/push`, { method: "PUT", headers: { ...authHeaders(), "content-type": "application/json" }, body: '{"muted":true}' })).status).toBe(204);

  // A person, added with a one-time sign-in link (unused: it stays to be spent after the upgrade).
  await rest.ok(rest.post("/api/users", { name: "before-the-upgrade" }));
  // A display name of their own (the administrator's stays the default, which keeps no row).
  await rest.ok(rest.patch("/api/users/before-the-upgrade", { displayName: "Early" }));
  // Their Slack user and address; the first chat's own Slack channel.
  await rest.ok(rest.put("/api/users/before-the-upgrade/slack", { slackUserId: "U0EARLY001" }));
  await rest.ok(rest.put("/api/users/before-the-upgrade/email", { email: "early@example.com" }));
  await rest.ok(rest.put(`/api/sessions/${first.id}/slack`, { channel: "C0UPGRADE1" }));
  // The first chat shared with them, and an approval there that needs both: the administrator's vote counted, it waits for theirs.
  await rest.ok(rest.post(`/api/sessions/${first.id}/members`, { user: "before-the-upgrade" }));
  const approval = await rest.ok(
    rest.post<{ id: string }>("/api/asks", {
      kind: "approval",
      tool_name: "migrate",
      input: { to: "next" },
      from: "upgrade-script",
      session: first.id,
      approvals: { required: 2, from: ["local", "before-the-upgrade"] },
    }),
  );
  expect(await rest.ok(rest.post<{ outcome: string }>(`/api/questions/${approval.id}/reply`, { value: "once" }))).toMatchObject({ outcome: "voted" });

  const second = await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "A second chat" }));
  await rest.ok(rest.post(`/api/sessions/${second.id}/messages`, { text: "what can you do?" }));
  await settled(second.id);
  await rest.ok(rest.post(`/api/sessions/${second.id}/runs`, { function: "test.journal", commandId: "upgrade-start-2" }));
  const pending = await pendingOf(second.id);
  const pushes = await db.raw();
  await poll("the pending question's push in the outbox", async () => (await pushes.rows("PushDelivery")).length > 0);
  await poll(
    "the approval's Slack message and mail sent",
    async () => (await pushes.rows("SlackMessage")).some((r) => r.status === "done") && (await pushes.rows("EmailMessage")).some((r) => r.status === "sent"),
  );
  await pushes.close();
  // Stopped as for an upgrade: the node lets go of its runs' leases.
  await server.kill("SIGTERM");

  const client = await createDb(db.url);
  await createApiTokens(client).create({ ownerId: "local", name: "made before the upgrade" });
  await client.close();
  const raw = await db.raw();
  const dataset = await readDataset(raw);
  await raw.close();
  return { dataset, facts: { sessions: [first.id, second.id], pending } };
}

const engines: Array<{ engine: Engine; skip: string | null }> = [
  { engine: "sqlite", skip: null },
  { engine: "postgresql", skip: await pgReachable(PG_URL).then((r) => (r.ok ? null : r.reason)) },
];

for (const { engine, skip } of engines) {
  if (skip) console.warn(`SKIPPED upgrade tests on PostgreSQL: no PostgreSQL at ${PG_URL} (${skip}); set PARLEY_TEST_PG_URL`);
  const names = migrationNames(engine);

  describe.skipIf(skip !== null)(`upgrading a ${engine} database`, { timeout: 180_000 }, () => {
    let scenario: Promise<{ dataset: Dataset; facts: Facts }> | undefined;
    const written = () => (scenario ??= writeScenario(engine));

    it("the scenario leaves rows in every table of the current schema but the node leases of several nodes", async () => {
      const { dataset } = await written();
      const empty = Object.entries(dataset)
        .filter(([table, rows]) => rows.length === 0 && table !== "NodeLease")
        .map(([table]) => table);
      expect(empty).toEqual([]);
    });

    /** Whether the server is started on the database upgraded from the first `count` migrations (see above). */
    const started = (count: number) => EVERY_START || count === 1 || count >= names.length - 1;
    const schemas = names.map((name, i) => [name, i + 1] as const);

    /** A database at the schema of the first `count` migrations, holding the scenario's rows cut to that schema (some in every table). */
    async function databaseAt(count: number): Promise<{ db: Db; before: Dataset }> {
      const { dataset } = await written();
      const db = await newDatabase(engine);
      await migrateDatabase(db.url, prefixRoot(engine, count));
      const raw = await db.raw();
      await fillDatabase(raw, dataset);
      const before = await readDataset(raw);
      await raw.close();
      for (const [table, rows] of Object.entries(before)) expect(rows.length, `rows in ${table} at ${names[count - 1]}`).toBeGreaterThan(0);
      return { db, before };
    }

    /** The migration alone: the later migrations applied, every row kept with every value of every column it had. */
    async function expectMigratedKeepingEverything(db: Db, before: Dataset, count: number) {
      const result = await migrateDatabase(db.url, MIGRATIONS);
      expect(result.applied).toEqual(names.slice(count));
      const migrated = await db.raw();
      expect(await rowsKept(before, migrated, { values: true })).toEqual([]);
      await migrated.close();
    }

    it.each(schemas.filter(([, count]) => !started(count)))("from the schema of %s: every row and value kept by the migration", async (_name, count) => {
      const { db, before } = await databaseAt(count);
      await expectMigratedKeepingEverything(db, before, count);
    });

    it.each(schemas.filter(([, count]) => started(count)))("from the schema of %s: every row kept, sessions readable, the pending question answered and its run finished", async (_name, count) => {
      const { dataset, facts } = await written();
      const { db, before } = await databaseAt(count);
      const copy = await db.copy();
      await expectMigratedKeepingEverything(copy, before, count);
      await copy.drop();

      // The current server on the database itself.
      const server = await startServer(db);
      if (count < names.length) {
        expect(server.output()).toContain(`migration(s) to apply: ${names.slice(count).join(", ")}`);
        if (engine === "sqlite") {
          const backups = readdirSync(path.join(db.dir, "data", "backups"));
          expect(backups).toEqual([expect.stringMatching(new RegExp(`^parley-.*-before-${names[count]}\\.db$`))]);
          expect(server.output()).toContain(`Backed up ${path.join(db.dir, "data", "parley.db")} to ${path.join(db.dir, "data", "backups", backups[0]!)}`);
        }
      } else {
        expect(server.output()).not.toContain("to apply");
        expect(existsSync(path.join(db.dir, "data", "backups"))).toBe(false);
      }
      const after = await db.raw();
      expect(await rowsKept(before, after, { values: false })).toEqual([]);
      await after.close();

      const rest = restClient(server.url);
      const listed = (await rest.ok(rest.get<Array<{ id: string }>>("/api/sessions"))).map((s) => s.id);
      expect(listed).toEqual(expect.arrayContaining(facts.sessions));
      for (const id of facts.sessions) {
        const detail = await rest.ok(rest.get<{ messages: Array<{ id: string }> }>(`/api/sessions/${id}`));
        const stored = dataset.Message!.filter((m) => m.sessionId === id).map((m) => m.id);
        expect(detail.messages.map((m) => m.id).sort()).toEqual([...stored].sort());
      }

      const tab = await openTab(server.url);
      cleanups.push(() => void tab.close());
      const joined = await joinSession(tab, facts.pending.sessionId);
      expect(joined.ok && joined.data.pendingQuestions.map((q) => q.id)).toEqual([facts.pending.id]);
      const receipt = await sendReply(tab, { id: facts.pending.id, value: "red", digest: facts.pending.targetDigest, commandId: `upgrade-answer-${count}` });
      expect(receipt).toMatchObject({ ok: true, data: { outcome: "answered", apply_state: "applied" } });
      const run = await poll(
        "the upgraded run to finish",
        async () => {
          const r = await rest.ok(rest.get<{ status: string; result: unknown }>(`/api/runs/${facts.pending.runId}`));
          return isFinalStatus(r.status) && r;
        },
        30_000,
      );
      expect(run).toMatchObject({ status: "succeeded", result: { color: "red" } });
      tab.close();
      await server.kill();
    });
  });
}
