import { describe, expect, it } from "vitest";
import { BusyQueue } from "./busy-queue";

/** A fake lock held elsewhere: statements fail like better-sqlite3's SQLITE_BUSY (as Prisma's adapter maps it) until released. */
function fakeLock() {
  let held = true;
  const attempts: string[] = [];
  return {
    attempts,
    release: () => (held = false),
    statement: (name: string) => async () => {
      attempts.push(name);
      if (held) throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
      return name;
    },
  };
}

describe("the busy queue", () => {
  it("lines writes that arrive during a lock up behind the one probing it, and runs them in order once it is gone", async () => {
    const lock = fakeLock();
    const queue = new BusyQueue({ budgetMs: 5_000, firstDelayMs: 5, maxDelayMs: 10 });
    const first = queue.run(lock.statement("first"));
    await new Promise((r) => setTimeout(r, 20));
    const second = queue.run(lock.statement("second"));
    const third = queue.run(lock.statement("third"));
    await new Promise((r) => setTimeout(r, 40));
    lock.release();

    expect(await Promise.all([first, second, third])).toEqual(["first", "second", "third"]);
    expect(lock.attempts.filter((a) => a !== "first")).toEqual(["second", "third"]);
    expect(lock.attempts.filter((a) => a === "first").length).toBeGreaterThan(3);
  });

  it("lets reads pass writes that wait for a lock", async () => {
    const lock = fakeLock();
    const queue = new BusyQueue({ budgetMs: 5_000 });
    const write = queue.run(lock.statement("write"));
    const read = queue.run(async () => "read", { write: false });

    expect(await read).toBe("read");
    lock.release();
    expect(await write).toBe("write");
  });

  it("fails a statement with database_busy at its deadline, and passes other errors on untouched", async () => {
    const queue = new BusyQueue({ budgetMs: 50 });
    await expect(queue.run(fakeLock().statement("stuck"))).rejects.toMatchObject({ code: "database_busy" });
    const broken = new Error("no such table");
    await expect(queue.run(() => Promise.reject(broken))).rejects.toBe(broken);
  });
});
