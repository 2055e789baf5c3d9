import { describe, expect, it } from "vitest";
import { walDurability } from "./wal-durability";

/** A sync the test ends by hand; `calls` counts the syncs begun. */
function manualSync() {
  const pending: Array<{ resolve: () => void; reject: (err: unknown) => void }> = [];
  return {
    pending,
    sync: () => new Promise<void>((resolve, reject) => pending.push({ resolve, reject })),
    end: (err?: Error) => {
      const next = pending.shift()!;
      if (err) next.reject(err);
      else next.resolve();
    },
  };
}

const flush = () => new Promise((resolve) => setImmediate(resolve));
const settledState = (p: Promise<unknown>) => {
  const state = { done: false, error: undefined as unknown };
  p.then(
    () => (state.done = true),
    (err: unknown) => ((state.done = true), (state.error = err)),
  );
  return state;
};

describe("commits made durable off the event loop", () => {
  it("a commit is heard only once a sync begun after it has ended", async () => {
    const disk = manualSync();
    const durability = walDurability(disk.sync);
    const first = settledState(durability.committed());
    await flush();
    expect(disk.pending).toHaveLength(1);
    expect(first.done).toBe(false);
    disk.end();
    await flush();
    expect(first).toEqual({ done: true, error: undefined });
    expect(durability.settled()).toBeNull();
  });

  it("commits made while a sync runs share the next one, heard in commit order", async () => {
    const disk = manualSync();
    const durability = walDurability(disk.sync);
    const heard: number[] = [];
    const first = durability.committed().then(() => heard.push(1));
    // The first commit's turn handed its work on: its sync begins; these three come while it runs.
    durability.flush(false);
    const later = [2, 3, 4].map((n) => durability.committed().then(() => heard.push(n)));
    await flush();
    expect(disk.pending).toHaveLength(1);
    disk.end();
    await first;
    await flush();
    expect(heard).toEqual([1]);
    // One sync for the three.
    expect(disk.pending).toHaveLength(1);
    disk.end();
    await Promise.all(later);
    expect(heard).toEqual([1, 2, 3, 4]);
    expect(disk.pending).toHaveLength(0);

    const fifth = settledState(durability.committed());
    await flush();
    const sixth = settledState(durability.committed());
    await flush();
    // The sixth came while the fifth's sync ran: that sync may not cover it.
    expect(disk.pending).toHaveLength(1);
    disk.end();
    await flush();
    expect([fifth.done, sixth.done]).toEqual([true, false]);
    expect(disk.pending).toHaveLength(1);
    disk.end();
    await flush();
    expect(sixth.done).toBe(true);
  });

  it("a failed sync fails the commits it covered, and the next commit is synced again", async () => {
    const disk = manualSync();
    const durability = walDurability(disk.sync);
    const failed = settledState(durability.committed());
    await flush();
    disk.end(new Error("EIO"));
    await flush();
    expect((failed.error as Error).message).toBe("EIO");
    const next = settledState(durability.committed());
    await flush();
    disk.end();
    await flush();
    expect(next).toEqual({ done: true, error: undefined });
  });

  it("settled() waits for the commits made so far and is null once they are durable", async () => {
    const disk = manualSync();
    const durability = walDurability(disk.sync);
    expect(durability.settled()).toBeNull();
    void durability.committed();
    const reader = settledState(durability.settled()!);
    await flush();
    expect(reader.done).toBe(false);
    disk.end();
    await flush();
    expect(reader.done).toBe(true);
    expect(durability.settled()).toBeNull();
  });

  it("close() waits for the sync under way", async () => {
    const disk = manualSync();
    let released = false;
    const durability = walDurability(disk.sync, async () => void (released = true));
    void durability.committed();
    await flush();
    const closing = settledState(durability.close());
    await flush();
    expect([closing.done, released]).toEqual([false, false]);
    disk.end();
    await flush();
    await flush();
    expect([closing.done, released]).toEqual([true, true]);
  });

  it("commits of one turn share the sync that begins after it, unless the turn flushes first", async () => {
    const disk = manualSync();
    const durability = walDurability(disk.sync);
    const heard: number[] = [];
    const all = [1, 2].map((n) => durability.committed().then(() => heard.push(n)));
    expect(disk.pending).toHaveLength(0);
    await flush();
    expect(disk.pending).toHaveLength(1);
    disk.end();
    await Promise.all(all);
    expect(heard).toEqual([1, 2]);
    expect(disk.pending).toHaveLength(0);
  });
});

describe("a quiet loop syncs on itself", () => {
  function inlineDisk(quiet: { now: boolean }) {
    const disk = manualSync();
    const order: string[] = [];
    const durability = walDurability(
      () => (order.push("pool"), disk.sync()),
      async () => {},
      { syncNow: () => void order.push("loop"), when: () => quiet.now },
    );
    return { disk, order, durability };
  }

  it("while quiet: the sync runs on the loop at flush, after the commit's hooks, and the commit is heard without the pool", async () => {
    const { disk, order, durability } = inlineDisk({ now: true });
    const kept = settledState(durability.committed());
    order.push("hooks");
    durability.flush(false);
    expect(order).toEqual(["hooks", "loop"]);
    await flush();
    expect(kept).toEqual({ done: true, error: undefined });
    expect(disk.pending).toHaveLength(0);
    expect(durability.settled()).toBeNull();
  });

  it("while busy: the pool syncs, and so do the commits that came while it ran, quiet or not", async () => {
    const quiet = { now: false };
    const { disk, order, durability } = inlineDisk(quiet);
    const kept = settledState(durability.committed());
    durability.flush(false);
    expect(order).toEqual(["pool"]);
    quiet.now = true;
    const next = settledState(durability.committed());
    durability.flush(false);
    expect(order).toEqual(["pool"]);
    disk.end();
    await flush();
    expect(kept.done).toBe(true);
    expect(order).toEqual(["pool", "pool"]);
    disk.end();
    await flush();
    expect(next).toEqual({ done: true, error: undefined });
  });

  it("a commit that handed work on syncs on the pool even when quiet: the loop stays free for its answer", async () => {
    const { disk, order, durability } = inlineDisk({ now: true });
    const kept = settledState(durability.committed());
    durability.flush(true);
    expect(order).toEqual(["pool"]);
    disk.end();
    await flush();
    expect(kept).toEqual({ done: true, error: undefined });
  });

  it("a sync on the loop that fails rejects the commits it was for, and the next commit syncs again", async () => {
    let fail = true;
    const durability = walDurability(
      () => Promise.resolve(),
      async () => {},
      {
        syncNow: () => {
          if (fail) throw new Error("EIO: the disk failed");
        },
        when: () => true,
      },
    );
    const failed = settledState(durability.committed());
    durability.flush(false);
    await flush();
    expect(failed.done).toBe(true);
    expect(String(failed.error)).toMatch(/EIO/);
    fail = false;
    const kept = settledState(durability.committed());
    durability.flush(false);
    await flush();
    expect(kept).toEqual({ done: true, error: undefined });
  });
});
