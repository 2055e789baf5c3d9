import { describe, expect, it } from "vitest";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { AskRefused, AskTimeout, CannotAsk, ChildRunFailed, JournalDivergence, RunCancelled, RunParked, UserDeclined } from "./errors";
import { createRuntime, DEFAULT_TIMEOUT_MS, digestOf, type Settlement } from "./runtime";

function setup({ canAsk = true, journal = [] as JournalRecord[] } = {}) {
  const sent: ChildToParent[] = [];
  let n = 0;
  const controller = createRuntime({ runId: "run-1", sessionId: "s-1", canAsk, journal, send: (m) => sent.push(m), newId: () => `q${++n}` });
  const asks = () => sent.filter((m): m is Extract<ChildToParent, { type: "question.ask" }> => m.type === "question.ask");
  const settleLast = async (s: Partial<Settlement> & Pick<Settlement, "outcome">) => {
    await Promise.resolve();
    const last = asks().at(-1)!;
    controller.settle(last.questionId, { value: null, feedback: null, ...s });
  };
  return { controller, rt: controller.rt, sent, asks, settleLast };
}

describe("ask", () => {
  it("sends the question over IPC with the 30-minute default timeout and returns the answer", async () => {
    const { rt, asks, settleLast } = setup();
    const answer = rt.ask("Which environment?", { options: ["production", "staging"] });
    await settleLast({ outcome: "answered", value: "staging" });
    await expect(answer).resolves.toBe("staging");
    expect(asks()[0]).toMatchObject({
      runId: "run-1",
      spec: { kind: "question", prompt: "Which environment?", options: ["production", "staging"], timeoutMs: DEFAULT_TIMEOUT_MS },
    });
  });

  it("passes null through as no timeout", async () => {
    const { rt, asks, settleLast } = setup();
    const answer = rt.ask("Name?", { timeoutMs: null });
    await settleLast({ outcome: "answered", value: "Ada" });
    await answer;
    expect(asks()[0]!.spec.timeoutMs).toBeNull();
  });

  it("throws UserDeclined with the feedback on decline", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Deploy?", { options: ["a"] });
    await settleLast({ outcome: "declined", feedback: "not today" });
    await expect(answer).rejects.toSatisfy((e) => e instanceof UserDeclined && e.feedback === "not today");
  });

  it("returns the default on timeout when one is given", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Lunch?", { options: ["12:00", "12:30"], default: "12:30" });
    await settleLast({ outcome: "timed_out" });
    await expect(answer).resolves.toBe("12:30");
  });

  it("throws AskTimeout on timeout without a default", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Code?");
    await settleLast({ outcome: "timed_out" });
    await expect(answer).rejects.toBeInstanceOf(AskTimeout);
  });

  it.each(["cancelled", "expired"] as const)("throws RunCancelled when the question is %s", async (outcome) => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Code?");
    await settleLast({ outcome });
    await expect(answer).rejects.toBeInstanceOf(RunCancelled);
  });

  it("returns a list for multi", async () => {
    const { rt, settleLast } = setup();
    const answer = rt.ask("Toppings?", { options: ["a", "b"], multi: true });
    await settleLast({ outcome: "answered", value: ["a", "b"] });
    await expect(answer).resolves.toEqual(["a", "b"]);
  });

  it("does not ask in a headless run: the default, or CannotAsk", async () => {
    const { rt, sent } = setup({ canAsk: false });
    expect(rt.canAsk()).toBe(false);
    await expect(rt.ask("Lunch?", { default: "12:30" })).resolves.toBe("12:30");
    await expect(rt.ask("Code?")).rejects.toBeInstanceOf(CannotAsk);
    expect(sent).toHaveLength(0);
  });
});

describe("withOwner", () => {
  it("labels the questions of a sub-agent with its name, leaving the digest alone", async () => {
    const { rt, asks, settleLast } = setup();
    const answer = rt.withOwner("deploy").ask("Env?", { options: ["a"] });
    await settleLast({ outcome: "answered", value: "a" });
    await answer;
    expect(asks()[0]!.spec.owner).toBe("deploy");
    expect(asks()[0]!.digest).toBe(digestOf("question", "question", "Env?", ["a"], false, false, null));
  });
});

describe("confirm", () => {
  it("returns true or false as answered, with the detail sent along", async () => {
    const { rt, asks, settleLast } = setup();
    const ok = rt.confirm("Archive 87 emails?", { detail: "87 emails" });
    await settleLast({ outcome: "answered", value: true });
    await expect(ok).resolves.toBe(true);
    expect(asks()[0]!.spec).toMatchObject({ kind: "confirm", detail: "87 emails", default: false });
  });

  it("never throws on timeout: false unless a default is given", async () => {
    const a = setup();
    const plain = a.rt.confirm("Sure?");
    await a.settleLast({ outcome: "timed_out" });
    await expect(plain).resolves.toBe(false);

    const b = setup();
    const withDefault = b.rt.confirm("Sure?", { default: true });
    await b.settleLast({ outcome: "timed_out" });
    await expect(withDefault).resolves.toBe(true);
  });

  it("returns false on decline", async () => {
    const { rt, settleLast } = setup();
    const ok = rt.confirm("Sure?", { default: true });
    await settleLast({ outcome: "declined", feedback: "no" });
    await expect(ok).resolves.toBe(false);
  });

  it("throws RunCancelled when the run is stopped", async () => {
    const { rt, settleLast } = setup();
    const ok = rt.confirm("Sure?");
    await settleLast({ outcome: "cancelled" });
    await expect(ok).rejects.toBeInstanceOf(RunCancelled);
  });
});

describe("askUser", () => {
  it("returns null on decline and on timeout, the text otherwise", async () => {
    const { rt, settleLast } = setup();
    const declined = rt.askUser("Name?");
    await settleLast({ outcome: "declined" });
    await expect(declined).resolves.toBeNull();
    const timedOut = rt.askUser("Name?");
    await settleLast({ outcome: "timed_out" });
    await expect(timedOut).resolves.toBeNull();
    const answered = rt.askUser("Name?");
    await settleLast({ outcome: "answered", value: "Ada" });
    await expect(answered).resolves.toBe("Ada");
  });
});

describe("the run controller", () => {
  it("cancel ends every pending ask, aborts the signal and refuses new asks", async () => {
    const { controller, rt } = setup();
    const one = rt.ask("One?");
    const two = rt.ask("Two?");
    await Promise.resolve();
    expect(controller.pendingCount()).toBe(2);
    controller.cancel("Stopped by the user.");
    await expect(one).rejects.toBeInstanceOf(RunCancelled);
    await expect(two).rejects.toThrow("Stopped by the user.");
    expect(rt.signal.aborted).toBe(true);
    expect(controller.pendingCount()).toBe(0);
    await expect(rt.ask("Three?")).rejects.toBeInstanceOf(RunCancelled);
    await expect(rt.sleep(10_000)).rejects.toBeInstanceOf(RunCancelled);
  });

  it("settling an unknown or already settled id is a harmless no-op", async () => {
    const { controller, rt, settleLast, asks } = setup();
    controller.settle("nope", { outcome: "answered", value: "x", feedback: null });
    const answer = rt.ask("Once?");
    await settleLast({ outcome: "answered", value: "first" });
    controller.settle(asks()[0]!.questionId, { outcome: "answered", value: "second", feedback: null });
    await expect(answer).resolves.toBe("first");
  });

  it("a refused question throws AskRefused with the server's code", async () => {
    const { controller, rt, asks } = setup();
    const answer = rt.ask("Ninth?");
    await Promise.resolve();
    controller.refuse(asks()[0]!.questionId, { code: "max_requests_exceeded", message: "at most 8" });
    await expect(answer).rejects.toSatisfy((e) => e instanceof AskRefused && e.code === "max_requests_exceeded");
  });
});

describe("the journal", () => {
  it("records steps, messages and questions in order, each with its position", async () => {
    const { rt, sent, settleLast } = setup();
    const value = await rt.step("fetch", async () => ({ at: new Date(0) }));
    expect(value).toEqual({ at: "1970-01-01T00:00:00.000Z" });
    rt.say("hello");
    const answer = rt.ask("Env?");
    await settleLast({ outcome: "answered", value: "prod" });
    await answer;
    expect(sent.map((m) => [m.type, "seq" in m ? m.seq : null])).toEqual([
      ["step.record", 0],
      ["run.say", 1],
      ["question.ask", 2],
    ]);
  });

  it("replay returns recorded results at once and does nothing twice", async () => {
    let stepRuns = 0;
    const journal: JournalRecord[] = [
      { kind: "step", seq: 0, digest: digestOf("step", "fetch"), output: { rows: 3 } },
      { kind: "say", seq: 1, digest: digestOf("say", "hello") },
      { kind: "question", seq: 2, digest: digestOf("question", "question", "Env?", [], false, false, null), questionId: "old-q", settlement: { outcome: "answered", value: "prod", feedback: null } },
    ];
    const { rt, sent } = setup({ journal });
    expect(await rt.step("fetch", () => ++stepRuns)).toEqual({ rows: 3 });
    rt.say("hello");
    expect(await rt.ask("Env?")).toBe("prod");
    rt.say("new line");
    expect(stepRuns).toBe(0);
    expect(sent).toEqual([expect.objectContaining({ type: "run.say", seq: 3, text: "new line" })]);
  });

  it("a question still pending in the journal waits for its answer without asking again", async () => {
    const journal: JournalRecord[] = [
      { kind: "question", seq: 0, digest: digestOf("question", "question", "Env?", [], false, false, null), questionId: "old-q", settlement: null },
    ];
    const { controller, rt, sent } = setup({ journal });
    // The answer may arrive before the replay reaches the ask: it is kept for it.
    controller.settle("old-q", { outcome: "answered", value: "staging", feedback: null });
    expect(await rt.ask("Env?")).toBe("staging");
    expect(sent).toEqual([]);
  });

  it("doing something else than the journal recorded fails with JournalDivergence", async () => {
    const journal: JournalRecord[] = [{ kind: "step", seq: 0, digest: digestOf("step", "fetch"), output: 1 }];
    const { controller, rt } = setup({ journal });
    await expect(rt.ask("Env?")).rejects.toBeInstanceOf(JournalDivergence);
    expect(controller.divergence()?.message).toMatch(/diverged from its journal at step 0/);
  });

  it("call starts a child run and returns its result; a failed child throws ChildRunFailed", async () => {
    const { controller, rt, sent } = setup();
    const ok = rt.call("deploy", { env: "prod" });
    const bad = rt.call("archive");
    await Promise.resolve();
    expect(sent.map((m) => m.type)).toEqual(["run.call", "run.call"]);
    controller.settleCall(0, { status: "succeeded", result: { done: true }, error: null });
    controller.settleCall(1, { status: "failed", result: null, error: "disk full" });
    await expect(ok).resolves.toEqual({ done: true });
    await expect(bad).rejects.toSatisfy((e) => e instanceof ChildRunFailed && /archive failed: disk full/.test(e.message));
  });
});

describe("parking", () => {
  it("lets go of a run that only waits; anything it does afterwards is refused", async () => {
    const { controller, rt } = setup();
    void rt.ask("Env?");
    await Promise.resolve();
    expect(controller.park()).toBe(true);
    expect(controller.isParked()).toBe(true);
    expect(controller.pendingCount()).toBe(0);
    expect(() => rt.say("late")).toThrow(RunParked);
  });

  it("refuses to park while a step is in flight", async () => {
    const { controller, rt } = setup();
    let finish!: () => void;
    const step = rt.step("slow", () => new Promise<void>((r) => (finish = r)));
    expect(controller.park()).toBe(false);
    finish();
    await step;
    expect(controller.park()).toBe(true);
  });
});
