import { EventEmitter } from "node:events";
import { describe, expect, it, vi } from "vitest";
import type { Question } from "../protocol/question";
import { askBody, askUntilSettled, outcomeOf, parseTimeout } from "./ask-command";
import { UsageError } from "./arguments";

describe("parley ask's command line", () => {
  it("reads durations as people write them", () => {
    expect([parseTimeout("90"), parseTimeout("90s"), parseTimeout("10m"), parseTimeout("2H"), parseTimeout("1d")]).toEqual([90, 90, 600, 7200, 86_400]);
    for (const bad of ["0", "soon", "10 m", "-5s", "1w"]) expect(() => parseTimeout(bad)).toThrow(UsageError);
  });

  it("builds the ask the server takes: options and a multi default split on commas; what no question can be is a usage error", () => {
    expect(askBody("Deploy?", { options: "yes, no", default: "no", timeout: "10m" })).toEqual({
      kind: "question",
      question: "Deploy?",
      from: "parley ask",
      options: ["yes", "no"],
      default: "no",
      timeout_seconds: 600,
    });
    expect(askBody("Ship?", { answerers: "alice, bob", escalateAfter: "10m", escalateTo: "carol" })).toMatchObject({ answerers: ["alice", "bob"], escalate: [{ after: 600_000, to: ["carol"] }] });
    expect(() => askBody("Ship?", { escalateAfter: "10m" })).toThrow(/go together/);
    expect(() => askBody("Ship?", { answerers: "not a name" })).toThrow(/answerers/);
    expect(askBody("Toppings?", { options: "ham,olives,corn", multi: true, default: "ham,corn", from: "pizza bot", session: "s1" })).toMatchObject({
      multiple: true,
      default: ["ham", "corn"],
      from: "pizza bot",
      session: "s1",
    });
    expect(() => askBody("Pick?", { multi: true })).toThrow(/multi needs options/);
  });

  it("prints only the answer on stdout; says why there is none on stderr, with the exit code a script branches on", () => {
    const q = (over: Partial<Question>) => ({ answer: null, feedback: null, ...over }) as Question;
    expect(outcomeOf(q({ status: "answered", answer: "yes" }))).toEqual({ code: 0, stdout: "yes", stderr: null });
    expect(outcomeOf(q({ status: "answered", answer: ["ham", "corn"] })).stdout).toBe("ham\ncorn");
    expect(outcomeOf(q({ status: "answered", answer: { n: 1 } })).stdout).toBe('{"n":1}');
    expect(outcomeOf(q({ status: "declined", feedback: "no" }))).toEqual({ code: 2, stdout: null, stderr: "Declined: no" });
    expect(outcomeOf(q({ status: "timed_out" })).code).toBe(3);
    expect(outcomeOf(q({ status: "cancelled" }))).toEqual({ code: 3, stdout: null, stderr: "The question was cancelled." });
  });
});

describe("Ctrl-C while parley ask waits", () => {
  const asked = { id: "q1", runId: "r1", status: "pending" } as Question;
  function fakeClient() {
    let stored!: (q: Question) => void;
    let cancel!: (q: Question) => void;
    const cancelled = new Promise<Question>((resolve) => (cancel = resolve));
    const client = {
      ask: vi.fn(() => new Promise<Question>((resolve) => (stored = resolve))),
      answer: vi.fn(() => cancelled),
      withdraw: vi.fn(async () => cancel({ ...asked, status: "cancelled" })),
    };
    return { client, store: () => stored(asked) };
  }

  it("withdraws the question it waits on, once", async () => {
    const { client, store } = fakeClient();
    const interrupts = new EventEmitter();
    const settled = askUntilSettled(client, askBody("Wait?", {}), { interrupts });
    store();
    await vi.waitFor(() => expect(client.answer).toHaveBeenCalled());
    interrupts.emit("SIGINT");
    await expect(settled).resolves.toMatchObject({ status: "cancelled" });
    expect(client.withdraw).toHaveBeenCalledExactlyOnceWith(asked);
    expect(interrupts.listenerCount("SIGINT")).toBe(0);
  });

  it("a Ctrl-C that comes while the ask is on its way withdraws the question as soon as the ask returns (the server may have stored it)", async () => {
    const { client, store } = fakeClient();
    const interrupts = new EventEmitter();
    const settled = askUntilSettled(client, askBody("Wait?", {}), { interrupts });
    interrupts.emit("SIGINT");
    expect(client.withdraw).not.toHaveBeenCalled();
    store();
    await expect(settled).resolves.toMatchObject({ status: "cancelled" });
    expect(client.withdraw).toHaveBeenCalledExactlyOnceWith(asked);
  });
});
