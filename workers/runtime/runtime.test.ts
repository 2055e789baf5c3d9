import { describe, expect, it } from "vitest";
import type { ChildToParent } from "../../lib/protocol/ipc";
import { AskTimeout, CannotAsk, RunCancelled, UserDeclined } from "./errors";
import { createRuntime, DEFAULT_TIMEOUT_MS, type Settlement } from "./runtime";

function setup({ canAsk = true } = {}) {
  const sent: ChildToParent[] = [];
  let n = 0;
  const controller = createRuntime({ runId: "run-1", sessionId: "s-1", canAsk, send: (m) => sent.push(m), newId: () => `q${++n}` });
  const asks = () => sent.filter((m): m is Extract<ChildToParent, { type: "question.ask" }> => m.type === "question.ask");
  const settleLast = async (s: Partial<Settlement> & Pick<Settlement, "outcome">) => {
    await Promise.resolve();
    const last = asks().at(-1)!;
    expect(controller.settle(last.questionId, { value: null, feedback: null, ...s })).toBe(true);
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
    expect(controller.settle("nope", { outcome: "answered", value: "x", feedback: null })).toBe(false);
    const answer = rt.ask("Once?");
    await settleLast({ outcome: "answered", value: "first" });
    expect(controller.settle(asks()[0]!.questionId, { outcome: "answered", value: "second", feedback: null })).toBe(false);
    await expect(answer).resolves.toBe("first");
  });
});
