import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildReceipt, commandPayload, type Receipt } from "../../protocol/commands";
import { AppError } from "../../protocol/errors";
import { createDb, type Db } from "../store/db/client";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { createCommandService, type CommandService } from "./command-ledger";
import { createInbox, isPermanent } from "./inbox";

let testDb: TestDatabase;
let db: Db;
let commands: CommandService;
const quiet = { error: () => {} };

beforeEach(async () => {
  testDb = await createTestDatabase("parley_inbox");
  db = await createDb(testDb.url);
  commands = createCommandService({ db });
});

afterEach(async () => {
  await db.close();
  await testDb.drop();
});

/** Questions whose replies count their effects; `failFirst` throws that error on the first call. */
function fakeQuestions({ failFirst }: { failFirst?: Error } = {}) {
  const effects: string[] = [];
  let calls = 0;
  const reply = async ({ id, commandId, value, digest }: { id: string; commandId: string; value: unknown; digest: string | null }): Promise<Receipt> => {
    calls++;
    if (calls === 1 && failFirst) throw failFirst;
    const kind = "send_input";
    return commands.run<Receipt>({ commandId, kind, payload: commandPayload(kind, { questionId: id, value, digest }) }, async ({ commandId: cid, commit }) => {
      const receipt = buildReceipt<Receipt>({ commandId: cid, kind, apply_state: "applied" });
      await commit(receipt);
      effects.push(id);
      return receipt;
    });
  };
  const reject = async (): Promise<Receipt> => {
    throw new Error("not used");
  };
  return { effects, calls: () => calls, reply, reject };
}

const noResume = async (): Promise<Receipt> => {
  throw new Error("not used");
};

async function queueReply(commandId: string, questionId = "q1") {
  await commands.enqueue({ commandId, kind: "send_input", payload: { questionId, value: "x", digest: null } }, buildReceipt<Receipt>({ commandId, kind: "send_input", apply_state: "queued" }));
}

describe("the inbox of queued commands", () => {
  it("a transient failure leaves the command queued; the next poll applies it", async () => {
    const questions = fakeQuestions({ failFirst: Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" }) });
    const inbox = createInbox({ commands, questions, resume: noResume, log: quiet });
    await queueReply("c1");
    expect(await inbox.applyOnce()).toBe(0);
    expect(await commands.getReceipt({ commandId: "c1" })).toMatchObject({ apply_state: "queued" });
    expect(await inbox.applyOnce()).toBe(1);
    expect(await commands.getReceipt({ commandId: "c1" })).toMatchObject({ apply_state: "applied" });
    expect(questions.effects).toEqual(["q1"]);
  });

  it("server-side errors (internal, unavailable, database_busy) are transient; the command's own faults are permanent", () => {
    expect(isPermanent(new AppError("internal", "x"))).toBe(false);
    expect(isPermanent(new AppError("database_busy", "x"))).toBe(false);
    expect(isPermanent(new AppError("unavailable", "x"))).toBe(false);
    expect(isPermanent(new Error("x"))).toBe(false);
    expect(isPermanent(new AppError("not_found:question", "x"))).toBe(true);
    expect(isPermanent(new AppError("invalid_answer", "x"))).toBe(true);
  });

  it("a permanent failure rejects the command for good, with the reason in its receipt", async () => {
    const questions = fakeQuestions({ failFirst: new AppError("not_found:question", "No question q1.") });
    const inbox = createInbox({ commands, questions, resume: noResume, log: quiet });
    await queueReply("c2");
    expect(await inbox.applyOnce()).toBe(1);
    expect(await commands.getReceipt({ commandId: "c2" })).toMatchObject({ apply_state: "rejected", error: { code: "not_found:question" } });
    expect(await inbox.applyOnce()).toBe(0);
    expect(questions.calls()).toBe(1);
  });

  it("a stored payload that is not a valid command is rejected as invalid", async () => {
    const questions = fakeQuestions();
    const inbox = createInbox({ commands, questions, resume: noResume, log: quiet });
    await commands.enqueue({ commandId: "c3", kind: "send_input", payload: { questionId: "" } }, buildReceipt<Receipt>({ commandId: "c3", kind: "send_input", apply_state: "queued" }));
    await inbox.applyOnce();
    expect(await commands.getReceipt({ commandId: "c3" })).toMatchObject({ apply_state: "rejected", error: { code: "bad_request" } });
    expect(questions.calls()).toBe(0);
  });

  it("two appliers over one queued command apply it once", async () => {
    const questions = fakeQuestions();
    const a = createInbox({ commands, questions, resume: noResume, log: quiet });
    const b = createInbox({ commands, questions, resume: noResume, log: quiet });
    await queueReply("c4");
    await Promise.all([a.applyOnce(), b.applyOnce(), a.applyOnce()]);
    expect(questions.effects).toEqual(["q1"]);
    expect(await commands.getReceipt({ commandId: "c4" })).toMatchObject({ apply_state: "applied" });
  });

  it("a transient failure is logged once, however many polls retry it", async () => {
    const logged: unknown[] = [];
    const failing = { ...fakeQuestions(), reply: async (): Promise<Receipt> => Promise.reject(new Error("disk I/O error")) };
    const inbox = createInbox({ commands, questions: failing, resume: noResume, log: { error: (...args: unknown[]) => logged.push(args) } });
    await queueReply("c5");
    for (let i = 0; i < 3; i++) await inbox.applyOnce();
    expect(logged).toHaveLength(1);
    expect(await commands.getReceipt({ commandId: "c5" })).toMatchObject({ apply_state: "queued" });
  });

  it("applies queued stops through the stop it is given", async () => {
    const stopped: string[] = [];
    const inbox = createInbox({
      commands,
      questions: fakeQuestions(),
      resume: noResume,
      stop: async ({ id, commandId }) => {
        stopped.push(id);
        return commands.run({ commandId, kind: "stop_run", payload: { runId: id } }, async ({ commandId: cid, commit }) => {
          const r = buildReceipt<Receipt>({ commandId: cid, kind: "stop_run", apply_state: "applied", runId: id });
          await commit(r);
          return r;
        });
      },
      log: quiet,
    });
    await commands.enqueue({ commandId: "s1", kind: "stop_run", payload: { runId: "r1" } }, buildReceipt<Receipt>({ commandId: "s1", kind: "stop_run", apply_state: "queued", runId: "r1" }));
    expect(await inbox.applyOnce()).toBe(1);
    expect(stopped).toEqual(["r1"]);
    expect(await commands.getReceipt({ commandId: "s1" })).toMatchObject({ apply_state: "applied" });
  });
});
