import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { createRuntime, type Settlement } from "../runtime";
import type { AgentFunction } from "../runtime";
import { runTests, updateDocs, writeChangelog } from "./demo-functions";

type Ask = Extract<ChildToParent, { type: "question.ask" }>;

/** Runs a demo function with a fake host; `answer` settles each approval as it is asked. */
async function drive(
  fn: AgentFunction,
  answer: (ask: Ask, all: Ask[]) => Partial<Settlement> & Pick<Settlement, "outcome">,
  { journal = [] as JournalRecord[], newestFirst = false } = {},
) {
  const sent: ChildToParent[] = [];
  const settled = new Map<string, Settlement>();
  const controller = createRuntime({ runId: "run-9", sessionId: "s-1", canAsk: true, journal, send: (m) => sent.push(m), newId: () => `q${sent.length}` });
  let done = false;
  const running = fn.run(controller.rt, {}).finally(() => (done = true));
  while (!done) {
    await vi.advanceTimersByTimeAsync(50);
    const asks = sent.filter((m): m is Ask => m.type === "question.ask");
    const pending = asks.filter((a) => !settled.has(a.questionId));
    for (const ask of newestFirst ? pending.reverse() : pending) {
      const s = { value: null, feedback: null, ...answer(ask, asks) };
      settled.set(ask.questionId, s);
      controller.settle(ask.questionId, s);
    }
  }
  const result = await running;
  const says = sent.filter((m) => m.type === "run.say").map((m) => (m as Extract<ChildToParent, { type: "run.say" }>).text);
  /** The journal the server would hand a replay of this run. */
  const journalAfter: JournalRecord[] = sent.flatMap((m): JournalRecord[] => {
    if (m.type === "question.ask") return [{ kind: "question", seq: m.seq, digest: m.digest, questionId: m.questionId, settlement: settled.get(m.questionId)! }];
    if (m.type === "step.record") return [{ kind: "step", seq: m.seq, digest: m.digest, output: m.output }];
    if (m.type === "run.say") return [{ kind: "say", seq: m.seq, digest: m.digest }];
    return [];
  });
  return { result, sent, says, asks: sent.filter((m): m is Ask => m.type === "question.ask"), journal: journalAfter, controller };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("run-tests", () => {
  it("asks to run `npm test` and reports the simulated output once allowed", async () => {
    const run = await drive(runTests, () => ({ outcome: "answered", value: "once" }));
    expect(run.asks).toHaveLength(1);
    expect(run.asks[0]!.spec).toMatchObject({ kind: "approval", prompt: "Run `npm test`?", approval: { tool: "shell", cwd: ".", always: [{ pattern: "npm test", cwd: "." }, { pattern: "npm test *", cwd: "." }], preview: { type: "command", command: "npm test" } } });
    expect(run.result).toEqual({ ran: true, exitCode: 0, passed: 121 });
    expect(run.says).toHaveLength(1);
    expect(run.says[0]).toMatch(/^\$ npm test\n ✓ lib\/protocol\/question\.test\.ts/);
    expect(run.says[0]).toMatch(/All 121 tests passed/);
    expect(run.sent.some((m) => m.type === "run.progress" && m.text?.includes("npm test:"))).toBe(true);
  });

  it("says what happened and quotes the feedback when rejected", async () => {
    const run = await drive(runTests, () => ({ outcome: "declined", feedback: "run only the unit tests" }));
    expect(run.says).toEqual(['I did not run the tests. You said: "run only the unit tests".']);
    expect(run.result).toEqual({ ran: false, reason: "rejected", feedback: "run only the unit tests" });
    expect(run.sent.some((m) => m.type === "step.record")).toBe(false);
  });

  it("reports a rule's denial in the rule's words", async () => {
    const run = await drive(runTests, () => ({ outcome: "declined", feedback: 'Denied by the rule "shell npm*".' }));
    expect(run.says).toEqual(['I did not run the tests. Denied by the rule "shell npm*".']);
  });
});

describe("write-changelog", () => {
  it("previews the write as a diff and writes once allowed", async () => {
    const run = await drive(writeChangelog, () => ({ outcome: "answered", value: "always" }));
    const approval = run.asks[0]!.spec.approval!;
    expect(approval).toMatchObject({ tool: "write_file", subject: "docs/changelog.md", always: [{ pattern: "docs/changelog.md" }, { pattern: "docs/**" }] });
    expect(approval.preview.type).toBe("diff");
    expect(approval.preview.type === "diff" && approval.preview.diff).toContain("\n+## 0.2.0\n");
    expect(run.says).toEqual(["Wrote docs/changelog.md: a 0.2.0 section at the top (9 lines now). 📝"]);
  });

  it("says so when nobody answered in time", async () => {
    const run = await drive(writeChangelog, () => ({ outcome: "timed_out" }));
    expect(run.says).toEqual(["No answer in 30 minutes: denied. I left docs/changelog.md as it was."]);
    expect(run.result).toMatchObject({ written: false, reason: "timed_out" });
  });
});

describe("update-docs", () => {
  it("asks two approvals at once, both covered by docs/**", async () => {
    const asked: number[] = [];
    // "Allow always" on the second card; the server then settles the first, which the rule covers.
    const run = await drive(updateDocs, (_ask, all) => {
      asked.push(all.length);
      return { outcome: "answered", value: "always" };
    });
    expect(asked[0]).toBe(2);
    expect(run.asks.map((a) => [a.spec.approval!.subject, a.spec.approval!.always.at(-1)!.pattern])).toEqual([
      ["docs/getting-started.md", "docs/**"],
      ["docs/approvals.md", "docs/**"],
    ]);
    expect(run.says.at(-1)).toBe("Wrote docs/getting-started.md and docs/approvals.md. 📚");
    expect(run.result).toEqual({ written: ["docs/getting-started.md", "docs/approvals.md"], denied: [] });
  });

  it("reports a rejected file with its feedback, the other written", async () => {
    const run = await drive(updateDocs, (ask) =>
      ask.spec.approval!.subject === "docs/approvals.md" ? { outcome: "declined", feedback: "that page is not ready" } : { outcome: "answered", value: "once" },
    );
    expect(run.says.slice(1)).toEqual(['I did not write docs/approvals.md. You said: "that page is not ready".', "Wrote docs/getting-started.md. 📚"]);
  });

  it("replays from its journal without asking, writing or saying anything again, whichever card was answered first", async () => {
    // The second card is settled first: its step finishes first in the live run.
    const live = await drive(updateDocs, () => ({ outcome: "answered", value: "once" }), { newestFirst: true });
    const steps = live.sent.filter((m) => m.type === "step.record").map((m) => m.seq);
    expect(steps).toEqual([4, 2]);
    const replay = await drive(
      updateDocs,
      () => {
        throw new Error("a replay must not ask");
      },
      { journal: live.journal },
    );
    expect(replay.sent).toEqual([]);
    expect(replay.result).toEqual(live.result);
    expect(replay.controller.divergence()).toBeNull();
  });
});
