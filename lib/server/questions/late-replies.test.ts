import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { MAX_JSON_BYTES } from "../../protocol/json-input";
import { DEFAULT_POLICY, type RunPolicy } from "../../protocol/policy";
import type { QuestionSpec } from "../../protocol/question";
import { createCommandService, SETTLED_PAYLOAD } from "../ledger/command-ledger";
import { createDb, type Db } from "../store/db/client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { migrateSqlite } from "../store/db/migrate";
import { DomainEvents } from "../events";
import { createQuestionService, type QuestionService } from "./question-service";

/** Replies that apply nothing (late, stale) meet the same limits as any reply and store no payload. */

let dir: string;
let file: string;
let db: Db;
let fixture: FixtureDb;
let questions: QuestionService;

const spec: QuestionSpec = {
  kind: "question",
  prompt: "Anything?",
  options: [],
  multi: false,
  allowCustom: true,
  detail: null,
  timeoutMs: null,
  replySchema: null,
};

let n = 0;
async function ask(policy: RunPolicy) {
  n++;
  await fixture.run.update({ where: { id: "r1" }, data: { policy: JSON.stringify(policy) } });
  return questions.create({ id: `q${n}`, run: { id: "r1", sessionId: "s1", functionName: "f", policy }, seq: n, digest: `d${n}`, spec });
}

/** The database's bytes on disk, with its write-ahead log. */
function databaseBytes(): number {
  return [file, `${file}-wal`].reduce((sum, f) => {
    try {
      return sum + statSync(f).size;
    } catch {
      return sum;
    }
  }, 0);
}

const codeOf = (work: Promise<unknown>) =>
  work.then(
    () => "no error",
    (err: { code?: string }) => err.code,
  );

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-late-"));
  file = path.join(dir, "late.db");
  const url = `file:${file}`;
  await migrateSqlite(url, path.resolve("prisma/migrations"));
  db = await createDb(url);
  fixture = await openFixtureDb(url);
  questions = createQuestionService({ db, events: new DomainEvents(), commands: createCommandService({ db }) });
  await fixture.chatSession.create({ data: { id: "s1", title: "t" } });
  await fixture.run.create({ data: { id: "r1", sessionId: "s1", functionName: "f", input: "null", status: "running" } });
});

afterEach(async () => {
  questions.dispose();
  await fixture.$disconnect();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("replies that apply nothing", () => {
  it("forty 1 MB replies to an answered question (and forty with a stale digest) leave the database small", async () => {
    const big = { ...DEFAULT_POLICY, maxReplyBytes: MAX_JSON_BYTES };
    const closed = await ask(big);
    await questions.reply({ id: closed.id, value: "done", by: "rest" });
    const pending = await ask(big);
    const before = databaseBytes();

    const large = "x".repeat(MAX_JSON_BYTES - 100);
    for (let i = 0; i < 40; i++) {
      const late = await questions.reply({ id: closed.id, value: large, by: "rest" });
      expect(late).toMatchObject({ apply_state: "target_closed", outcome: "already_answered" });
      const stale = await questions.reply({ id: pending.id, value: large, digest: "0".repeat(64), commandId: `stale-${i}`, by: "socket" });
      expect(stale).toMatchObject({ apply_state: "target_closed", outcome: "stale_target" });
    }

    expect(databaseBytes() - before).toBeLessThan(2_000_000);
    const rows = await fixture.command.findMany({ select: { payload: true, payloadDigest: true } });
    // The forty late replies had no commandId: nobody can ask for their receipts again, so none is kept.
    expect(rows.length).toBe(41);
    expect(rows.every((r) => r.payload === SETTLED_PAYLOAD && /^[0-9a-f]{64}$/.test(r.payloadDigest))).toBe(true);
  });

  it("a twin of a stale reply still gets its first receipt, and a different payload under its id is refused", async () => {
    const q = await ask(DEFAULT_POLICY);
    const first = await questions.reply({ id: q.id, value: "a", digest: "0".repeat(64), commandId: "c1", by: "rest" });
    expect(await questions.reply({ id: q.id, value: "a", digest: "0".repeat(64), commandId: "c1", by: "rest" })).toEqual(first);
    expect(await codeOf(questions.reply({ id: q.id, value: "b", digest: "0".repeat(64), commandId: "c1", by: "rest" }))).toBe("command_conflict");
  });

  it("a reply over the run's byte limit is refused even when the question is closed, and nothing is stored", async () => {
    const q = await ask({ ...DEFAULT_POLICY, maxReplyBytes: 1_000 });
    await questions.reject({ id: q.id, by: "rest" });
    const rows = await fixture.command.count();
    expect(await codeOf(questions.reply({ id: q.id, value: "x".repeat(2_000), by: "rest" }))).toBe("reply_too_large");
    expect(await codeOf(questions.reply({ id: q.id, value: "x".repeat(2_000), digest: "0".repeat(64), by: "rest" }))).toBe("reply_too_large");
    expect(await fixture.command.count()).toBe(rows);
  });

  it("a reply over the global ceiling, or nested thousands deep, is refused before the question is even read", async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 2_200; i++) deep = [deep];
    expect(await codeOf(questions.reply({ id: "no-such-question", value: "x".repeat(1_900_000), by: "rest" }))).toBe("reply_too_large");
    expect(await codeOf(questions.reply({ id: "no-such-question", value: deep, by: "socket" }))).toBe("reply_too_deep");
    expect(await fixture.command.count()).toBe(0);
  });

  it("checkReply (the CLI's check before it records a reply) applies the limits to a closed question too", async () => {
    const q = await ask({ ...DEFAULT_POLICY, maxReplyBytes: 1_000 });
    await questions.reply({ id: q.id, value: "done", by: "rest" });
    const closed = await questions.getQuestion({ id: q.id });
    expect(await codeOf(questions.checkReply({ question: closed, value: "x".repeat(2_000) }))).toBe("reply_too_large");
    expect(await codeOf(questions.checkReply({ question: closed, value: 42 }))).toBe("no error");
  });
});
