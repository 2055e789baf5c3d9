import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildReceipt, type Receipt } from "../../protocol/commands";
import { createDb, type Db } from "../store/db/client";
import { openFixtureDb, type FixtureDb } from "../../../tests/helpers/fixture-db";
import { createTestDatabase, type TestDatabase } from "../../../tests/helpers/test-db";
import { createCommandService, SETTLED_PAYLOAD, type CommandService } from "./command-ledger";
import { insertSession } from "../store/sessions/session-statements";

let testDb: TestDatabase;
let url: string;
let db: Db;
let fixture: FixtureDb;
let commands: CommandService;
const extra: Db[] = [];

beforeEach(async () => {
  testDb = await createTestDatabase("parley_cmd");
  url = testDb.url;
  db = await createDb(url);
  fixture = await openFixtureDb(url);
  commands = createCommandService({ db });
});

afterEach(async () => {
  for (const other of extra.splice(0)) await other.close();
  await fixture.$disconnect();
  await db.close();
  await testDb.drop();
});

/** A command whose effect is one new session row, made in the transaction that records its receipt. */
function createSession(service: CommandService, client: Db, { commandId, title = "t" }: { commandId?: string; title?: string }) {
  return service.run<Receipt>({ commandId, kind: "start_run", payload: { title } }, async ({ commandId: cid, record }) => {
    const receipt = buildReceipt<Receipt>({ commandId: cid, kind: "start_run", apply_state: "applied", runId: `run-of-${Math.random()}` });
    await client.exec.transaction(async (tx) => {
      await tx.rows(insertSession, { id: crypto.randomUUID(), ownerId: "local", title, at: new Date() });
      await record(tx, receipt);
    });
    return receipt;
  });
}

describe("idempotent commands", () => {
  it("twenty concurrent twins apply once and all return the same receipt", async () => {
    const receipts = await Promise.all(Array.from({ length: 20 }, () => createSession(commands, db, { commandId: "c1" })));
    expect(await fixture.chatSession.count()).toBe(1);
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    expect(await commands.getReceipt({ commandId: "c1" })).toEqual(receipts[0]);
  });

  it("a twin that arrives while the first applies gets the first's receipt, not what it would have seen of the first's effect", async () => {
    // A stop: the first finds the run active and stops it; a twin applying meanwhile would find it already ended.
    let active = true;
    const stop = () =>
      commands.run<Receipt & { outcome?: string }>({ commandId: "stop", kind: "stop_run", payload: { runId: "r" } }, async ({ commandId, commit }) => {
        const outcome = active ? "stopped" : "already_ended";
        active = false;
        if (outcome === "stopped") await new Promise((resolve) => setTimeout(resolve, 30));
        const receipt = { ...buildReceipt<Receipt>({ commandId, kind: "stop_run", apply_state: "applied" }), outcome };
        await commit(receipt);
        return receipt;
      });
    const [first, twin] = await Promise.all([stop(), new Promise((resolve) => setTimeout(resolve, 5)).then(stop)]);
    expect(first.outcome).toBe("stopped");
    expect(twin).toEqual(first);
  });

  it("twins from two database connections (two processes) apply once", async () => {
    const other = await createDb(url);
    extra.push(other);
    const otherCommands = createCommandService({ db: other });
    const receipts = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? createSession(commands, db, { commandId: "c2" }) : createSession(otherCommands, other, { commandId: "c2" }))));
    expect(await fixture.chatSession.count()).toBe(1);
    for (const r of receipts) expect(r).toEqual(receipts[0]);
  });

  it("commands without an id never collide", async () => {
    await Promise.all(Array.from({ length: 5 }, () => createSession(commands, db, {})));
    expect(await fixture.chatSession.count()).toBe(5);
  });

  it("the same id with another payload is refused with command_conflict, and changes nothing", async () => {
    await createSession(commands, db, { commandId: "c3", title: "a" });
    await expect(createSession(commands, db, { commandId: "c3", title: "b" })).rejects.toMatchObject({ code: "command_conflict" });
    expect(await fixture.chatSession.count()).toBe(1);
  });

  it("a failed apply records nothing, so the same command may be tried again", async () => {
    await expect(
      commands.run({ commandId: "c4", kind: "resume", payload: { runId: "r" } }, async () => {
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect(await commands.getReceipt({ commandId: "c4" })).toBeNull();
    await createSession(commands, db, { commandId: "c5" });
    expect(await fixture.chatSession.count()).toBe(1);
  });

  it("a queued command is claimed once by concurrent appliers; the losers get the winner's receipt", async () => {
    const queued = buildReceipt<Receipt>({ commandId: "q1", kind: "start_run", apply_state: "queued" });
    await commands.enqueue({ commandId: "q1", kind: "start_run", payload: { title: "t" } }, queued);
    expect(await commands.enqueue({ commandId: "q1", kind: "start_run", payload: { title: "t" } }, queued)).toEqual(queued);
    const receipts = await Promise.all(Array.from({ length: 10 }, () => createSession(commands, db, { commandId: "q1" })));
    expect(await fixture.chatSession.count()).toBe(1);
    for (const r of receipts) expect(r).toEqual(receipts[0]);
    expect(receipts[0]).toMatchObject({ apply_state: "applied" });
    expect(await commands.listQueued()).toEqual([]);
  });

  it("rejecting a queued command that another applier applied keeps the applied receipt", async () => {
    const queued = buildReceipt<Receipt>({ commandId: "q2", kind: "start_run", apply_state: "queued" });
    await commands.enqueue({ commandId: "q2", kind: "start_run", payload: { title: "t" } }, queued);
    const applied = await createSession(commands, db, { commandId: "q2" });
    const after = await commands.markRejected({ commandId: "q2", kind: "start_run", error: { code: "bad_request", message: "late" } });
    expect(after).toEqual(applied);
    expect(await commands.getReceipt({ commandId: "q2" })).toEqual(applied);
  });

  it("keeps a command's payload only while it is queued: settled, it keeps its digest and a placeholder", async () => {
    const payloadOf = async (id: string) => (await fixture.command.findUniqueOrThrow({ where: { id } })).payload;
    const queued = (commandId: string) => buildReceipt<Receipt>({ commandId, kind: "start_run", apply_state: "queued" });
    await commands.enqueue({ commandId: "p1", kind: "start_run", payload: { title: "queued" } }, queued("p1"));
    expect(JSON.parse(await payloadOf("p1"))).toEqual({ title: "queued" });
    expect(await commands.listQueued()).toEqual([{ id: "p1", kind: "start_run", payload: { title: "queued" } }]);
    await createSession(commands, db, { commandId: "p1", title: "queued" });
    expect(await payloadOf("p1")).toBe(SETTLED_PAYLOAD);

    await commands.enqueue({ commandId: "p2", kind: "start_run", payload: { title: "x" } }, queued("p2"));
    await commands.markRejected({ commandId: "p2", kind: "start_run", error: { code: "bad_request", message: "no" } });
    expect(await payloadOf("p2")).toBe(SETTLED_PAYLOAD);

    await createSession(commands, db, { commandId: "p3", title: "y".repeat(10_000) });
    expect(await payloadOf("p3")).toBe(SETTLED_PAYLOAD);
    // The digest still tells a twin from a conflict.
    await expect(createSession(commands, db, { commandId: "p3", title: "z" })).rejects.toMatchObject({ code: "command_conflict" });
  });
});
