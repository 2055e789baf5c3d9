import { describe, expect, it } from "vitest";
import { RunEventChain } from "./run-event-chain";

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("a run's event chain", () => {
  it("handles work in the order it came; a throw goes to `failed` and the chain goes on", async () => {
    const failures: unknown[] = [];
    const chain = new RunEventChain((err) => failures.push(err));
    const done: string[] = [];
    chain.enqueue(async () => {
      await settle();
      done.push("a");
    });
    chain.enqueue(() => {
      throw new Error("b broke");
    });
    chain.enqueue(() => void done.push("c"));
    await settle();
    await settle();
    expect(done).toEqual(["a", "c"]);
    expect(failures).toHaveLength(1);
  });

  it("runs atOnce work in the caller's turn when idle, and after what is queued when not", async () => {
    const chain = new RunEventChain(() => {});
    const done: string[] = [];
    chain.enqueue(() => void done.push("now"), { atOnce: true });
    expect(done).toEqual(["now"]);
    await settle();
    chain.enqueue(async () => {
      await settle();
      done.push("slow");
    });
    chain.enqueue(() => void done.push("after"), { atOnce: true });
    expect(done).toEqual(["now"]);
    await settle();
    await settle();
    expect(done).toEqual(["now", "slow", "after"]);
  });

  it("a resume holds every later event but those that pass it (order on the chain is kept)", async () => {
    const chain = new RunEventChain(() => {});
    const done: string[] = [];
    let release!: () => void;
    chain.resume(() => new Promise<void>((resolve) => (release = resolve)).then(() => void done.push("resumed")));
    chain.enqueue(() => void done.push("line"), { passesResume: true, atOnce: true });
    expect(done).toEqual(["line"]);
    chain.enqueue(() => void done.push("held"), { atOnce: true });
    // A line after held work keeps its place behind it.
    chain.enqueue(() => void done.push("next line"), { passesResume: true, atOnce: true });
    await settle();
    expect(done).toEqual(["line"]);
    release();
    await settle();
    expect(done).toEqual(["line", "resumed", "held", "next line"]);
  });

  it("once stopped, handles nothing more", async () => {
    const chain = new RunEventChain(() => {});
    const done: string[] = [];
    chain.stop();
    chain.enqueue(() => void done.push("late"));
    chain.enqueue(() => void done.push("late, at once"), { atOnce: true });
    await settle();
    expect(done).toEqual([]);
    expect(chain.isStopped).toBe(true);
  });
});
