import { describe, expect, it } from "vitest";
import type { Question } from "../protocol/question";
import { askBody, outcomeOf, parseTimeout } from "./ask-command";
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
