import { describe, expect, it } from "vitest";
import { coalescePerKey } from "./coalesce";

const tick = () => new Promise((r) => setImmediate(r));

describe("coalescePerKey", () => {
  it("runs a burst of asks for one key once, and each key apart", async () => {
    const ran: string[] = [];
    const ask = coalescePerKey(
      async (key) => void ran.push(key),
      () => {},
    );
    for (let i = 0; i < 5; i++) ask("a");
    ask("b");
    await tick();
    await tick();
    expect(ran).toEqual(["a", "b"]);
  });

  it("an ask while the work runs gets one more run after it, never two at once", async () => {
    const ran: string[] = [];
    let inFlight = 0;
    let most = 0;
    let release!: () => void;
    const ask = coalescePerKey(
      async (key) => {
        inFlight++;
        most = Math.max(most, inFlight);
        ran.push(key);
        if (ran.length === 1) await new Promise<void>((r) => (release = r));
        inFlight--;
      },
      () => {},
    );
    ask("a");
    await tick();
    ask("a");
    ask("a");
    release();
    for (let i = 0; i < 5; i++) await tick();
    expect(ran).toEqual(["a", "a"]);
    expect(most).toBe(1);
  });

  it("reports a failure and keeps working for the next ask", async () => {
    const errors: string[] = [];
    let calls = 0;
    const ask = coalescePerKey(
      async () => {
        if (++calls === 1) throw new Error("boom");
      },
      (key, err) => errors.push(`${key}: ${(err as Error).message}`),
    );
    ask("a");
    for (let i = 0; i < 3; i++) await tick();
    ask("a");
    for (let i = 0; i < 3; i++) await tick();
    expect(errors).toEqual(["a: boom"]);
    expect(calls).toBe(2);
  });

  it("once stopped, runs nothing asked for before or after (the database is closing)", async () => {
    const ran: string[] = [];
    const ask = coalescePerKey(
      async (key) => void ran.push(key),
      () => {},
    );
    ask("a");
    ask.stop();
    ask("b");
    for (let i = 0; i < 3; i++) await tick();
    expect(ran).toEqual([]);
  });
});
