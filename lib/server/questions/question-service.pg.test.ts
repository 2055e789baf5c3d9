import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../../protocol/question";
import { buildReceipt, commandPayload, type Receipt } from "../../protocol/commands";
import { DEFAULT_POLICY } from "../../protocol/policy";
import { createCommandService } from "../ledger/command-ledger";
import { createDb, type Db } from "../store/db/client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { DomainEvents } from "../events";
import { createQuestionService, type QuestionService } from "./question-service";
import { createPgDatabase, pgReachable, type TestDatabase } from "../../../tests/helpers/test-db";
import { slowDb } from "../../../tests/helpers/slow-pg-proxy";

// Claim-once on PostgreSQL, under real concurrency (a pool of connections, not one SQLite writer).
const PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";
const reachable = await pgReachable(PG_URL);
if (!reachable.ok) console.warn(`[skip] question-service.pg.test.ts: no PostgreSQL at ${PG_URL} (${reachable.reason}); set PARLEY_TEST_PG_URL`);

describe.skipIf(!reachable.ok)("question service on PostgreSQL", () => {
  let testDb: TestDatabase;
  let db: Db;
  let fixture: FixtureDb;
  let questions: QuestionService;
  const closed: Question[] = [];

  beforeAll(async () => {
    testDb = await createPgDatabase(PG_URL, "parley_qpg");
    db = await createDb(testDb.url);
    fixture = await openFixtureDb(testDb.url);
    const events = new DomainEvents();
    questions = createQuestionService({ db, events, commands: createCommandService({ db }) });
    events.on("question.closed", (q) => closed.push(q));
    await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
    await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "deploy", input: "null", status: "running" } });
  });

  afterAll(async () => {
    questions?.dispose();
    await fixture?.$disconnect();
    if (db) await db.close();
    await testDb?.drop();
  });

  /** A question service whose database is behind a slowProxy, its flights counted from 0. */
  async function slowService() {
    const { db: behind, proxy, close } = await slowDb(testDb.url);
    const slow = createQuestionService({ db: behind, events: new DomainEvents(), commands: createCommandService({ db: behind }) });
    return {
      slow,
      proxy,
      close: async () => {
        slow.dispose();
        await close();
      },
    };
  }

  /** A free-text question of run r1 at journal position n (id qn). */
  const askFreeText = (n: number) =>
    questions.create({
      id: `q${n}`,
      run: { id: "r1", sessionId: "s1", functionName: "deploy", policy: DEFAULT_POLICY },
      seq: n,
      digest: `d${n}`,
      spec: { kind: "question", prompt: `Which ${n}?`, options: [], multi: false, allowCustom: true, detail: null, timeoutMs: 60_000, replySchema: null },
    });

  it("200 concurrent replies to one question: exactly one wins, the others get the already-answered receipt", async () => {
    const q = await askFreeText(1);
    const receipts = await Promise.all(Array.from({ length: 200 }, (_, i) => questions.reply({ id: q.id, value: `answer ${i}`, by: i % 2 ? "rest" : "socket", commandId: `c-${i}` })));
    const winners = receipts.filter((r) => r.outcome === "answered");
    expect(winners).toHaveLength(1);
    expect(receipts.filter((r) => r.outcome === "already_answered")).toHaveLength(199);
    const stored = await questions.getQuestion({ id: q.id });
    expect(stored).toMatchObject({ status: "answered", answer: winners[0]!.question.answer });
    for (const late of receipts.filter((r) => r.outcome === "already_answered")) expect(late.question.answer).toBe(stored.answer);
    expect(closed.map((c) => c.id)).toEqual([q.id]);
    // A claim that lost rolled its receipt back: one applied, the others late.
    expect(await fixture.command.count({ where: { applyState: "applied" } })).toBe(1);
    expect(await fixture.command.count({ where: { applyState: "target_closed" } })).toBe(199);
  });

  it("50 twins of one reply (one commandId) at once: one claim, one receipt row, and every twin gets that receipt", async () => {
    const q = await askFreeText(2);
    const receipts = await Promise.all(Array.from({ length: 50 }, () => questions.reply({ id: q.id, value: "twin", by: "rest", commandId: "c-twin" })));
    expect(new Set(receipts.map((r) => JSON.stringify(r))).size).toBe(1);
    expect(receipts[0]).toMatchObject({ apply_state: "applied", outcome: "answered" });
    expect(await fixture.command.count({ where: { id: "c-twin" } })).toBe(1);
    expect(closed.filter((c) => c.id === q.id)).toHaveLength(1);
    // Stored times read back as written (UTC), whatever the process's time zone.
    const stored = await questions.getQuestion({ id: q.id });
    expect(Math.abs(Date.parse(stored.closedAt!) - Date.now())).toBeLessThan(60_000);
  });

  it("a run's question is stored in two round trips: BEGIN with the run's hold and its count, then the question, its journal entry and COMMIT", async () => {
    const { slow, proxy, close } = await slowService();
    try {
      const spec = { kind: "question" as const, prompt: "Which 6?", options: [], multi: false, allowCustom: true, detail: null, timeoutMs: 60_000, replySchema: null };
      await slow.create({ id: "q6", run: { id: "r1", sessionId: "s1", functionName: "deploy", policy: DEFAULT_POLICY }, seq: 6, digest: "d6", spec });
      // Before, the writes' answers were waited for before COMMIT left: three.
      expect(proxy.flights).toBe(2);
      expect(await questions.getQuestion({ id: "q6" })).toMatchObject({ status: "pending", prompt: "Which 6?" });
    } finally {
      await close();
    }
  });

  it("a tab's reply is two round trips: BEGIN with the held read, then the claim, the receipt and COMMIT", async () => {
    const q = await askFreeText(3);
    const { slow, proxy, close } = await slowService();
    try {
      const receipt = await slow.reply({ id: q.id, value: "held", by: "socket", person: "local" });
      expect(receipt).toMatchObject({ apply_state: "applied", outcome: "answered" });
      // Before, the claim's answer was waited for before COMMIT left: three.
      expect(proxy.flights).toBe(2);
      expect(await questions.getQuestion({ id: q.id })).toMatchObject({ status: "answered", answer: "held" });
    } finally {
      await close();
    }
  });

  it("a Stop while a reply holds the question waits for the reply: the reply wins, the Stop closes nothing", async () => {
    await fixture.run.create({ data: { id: "r-stop", sessionId: "s1", functionName: "deploy", input: "null", status: "running" } });
    const q = await questions.create({
      id: "q-stop",
      run: { id: "r-stop", sessionId: "s1", functionName: "deploy", policy: DEFAULT_POLICY },
      seq: 1,
      digest: "d-stop",
      spec: { kind: "question", prompt: "Stop or answer?", options: [], multi: false, allowCustom: true, detail: null, timeoutMs: 60_000, replySchema: null },
    });
    const { slow, proxy, close } = await slowService();
    try {
      let stopped: Promise<Question[]> | undefined;
      // Flights: BEGIN with the held read, then the claim, its receipt and COMMIT. While the last is held in the
      // proxy, the run is stopped: its claim waits for the reply's lock, then finds the question answered.
      proxy.onFlight = (flight) => {
        if (flight === 2) stopped = questions.closeForRun({ runId: "r-stop", status: "cancelled", by: "stop" });
      };
      const receipt = await slow.reply({ id: q.id, value: "answered first", by: "socket", person: "local" });
      expect(receipt).toMatchObject({ apply_state: "applied", outcome: "answered" });
      // Read without the lock, the Stop's claim won in between and the reply's claim changed nothing: a fault.
      expect(await stopped).toEqual([]);
      expect(await questions.getQuestion({ id: q.id })).toMatchObject({ status: "answered", answer: "answered first", closedBy: "socket" });
    } finally {
      await close();
    }
  });

  it("a queued reply whose command another applier settled while its claim was on the way rolls back: the question stays pending, the reply gets that receipt", async () => {
    const q = await askFreeText(7);
    const commandId = "queued-7";
    const commands = createCommandService({ db });
    await commands.enqueue(
      { commandId, kind: "send_input", payload: commandPayload("send_input", { questionId: q.id, value: "late", input: undefined, digest: null }) },
      buildReceipt<Receipt>({ commandId, kind: "send_input", apply_state: "queued" }),
    );
    const { slow, proxy, close } = await slowService();
    try {
      let rejected: Promise<Receipt> | undefined;
      // Flights: the command's read, BEGIN with the held read, then the claim with the queued command's claim. The
      // last is held in the proxy until another applier has rejected the command.
      proxy.onFlight = (flight) => {
        if (flight !== 3) return;
        rejected = commands.markRejected({ commandId, kind: "send_input", error: { code: "invalid_answer", message: "Rejected by another applier." } });
        return rejected;
      };
      const receipt = await slow.reply({ id: q.id, value: "late", by: "cli", commandId, digest: null });
      expect(await rejected).toMatchObject({ apply_state: "rejected" });
      expect(receipt).toMatchObject({ commandId, apply_state: "rejected" });
      // Sent with COMMIT, the question's claim committed without its receipt: answered by a rejected command.
      expect(await questions.getQuestion({ id: q.id })).toMatchObject({ status: "pending" });
    } finally {
      await close();
    }
  });
});
