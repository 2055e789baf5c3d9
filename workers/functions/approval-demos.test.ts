import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { SAMPLE_PROJECT } from "../../lib/server/workspace/sample-project";
import { createRuntime, type Settlement } from "../runtime";
import type { AgentFunction } from "../runtime";
import { workspaceEachTest } from "../tools/tool-harness";
import { runTests, testCounts, updateDocs, withRelease, writeChangelog } from "./demo-functions";
import { WORKSPACE_CODE_NOTE } from "../tools/shell";

type Ask = Extract<ChildToParent, { type: "question.ask" }>;
type StepRecord = Extract<ChildToParent, { type: "step.record" }>;

/** The tools' own steps (not the stamps of what a write's approval was asked on, journaled before it). */
const toolSteps = (sent: ChildToParent[]) => sent.filter((m): m is StepRecord => m.type === "step.record" && !m.name.endsWith(": as found before asking"));
type Answer = Partial<Settlement> & Pick<Settlement, "outcome">;

/** The workspace the tools work in: a new one, seeded with the sample project, for each test. */
const workspace = workspaceEachTest("parley-demo-");

const file = (rel: string) => readFileSync(path.join(workspace.ws(), rel), "utf8");

/** The server allows read_file by default (not dangerous): only the other approvals get `answer`. */
const readsAllowed =
  (answer: (ask: Ask, all: Ask[]) => Answer) =>
  (ask: Ask, all: Ask[]): Answer =>
    ask.spec.approval?.tool === "read_file" ? { outcome: "answered", value: "once" } : answer(ask, all);

/**
 * Runs a demo function in the test's workspace with a fake host; `answer` settles each approval as
 * it is asked. `newestFirst`: one at a time, newest first, each after the tool allowed before it has
 * finished (so steps finish in the reverse order of their positions).
 */
async function drive(fn: AgentFunction, answer: (ask: Ask, all: Ask[]) => Answer, { journal = [] as JournalRecord[], newestFirst = false, together = 1 } = {}) {
  const sent: ChildToParent[] = [];
  const settled = new Map<string, Settlement>();
  const controller = createRuntime({ runId: "run-9", sessionId: "s-1", canAsk: true, journal, workspace: workspace.ws(), send: (m) => sent.push(m), newId: () => `q${sent.length}` });
  let done = false;
  const running = fn.run(controller.rt, {}).finally(() => (done = true));
  while (!done) {
    await new Promise((r) => setTimeout(r, 5));
    // In journal order: calls made together claim their positions in order, but each is sent after its checks on disk.
    const asks = sent.filter((m): m is Ask => m.type === "question.ask").sort((a, b) => a.seq - b.seq);
    const pending = asks.filter((a) => !settled.has(a.questionId));
    // `together`: nothing is answered before that many approvals wait (a function asking them at once; one after another would hang).
    const busy = asks.length < together || (newestFirst && toolSteps(sent).length < settled.size);
    for (const ask of busy ? [] : newestFirst ? pending.reverse().slice(0, 1) : pending) {
      const s = { value: null, feedback: null, ...readsAllowed(answer)(ask, asks) };
      settled.set(ask.questionId, s);
      controller.settle(ask.questionId, s);
    }
  }
  const result = await running;
  const says = sent.filter((m) => m.type === "run.say").map((m) => m.text);
  /** The journal the server would hand a replay of this run. */
  const journalAfter: JournalRecord[] = sent.flatMap((m): JournalRecord[] => {
    if (m.type === "question.ask") return [{ kind: "question", seq: m.seq, digest: m.digest, questionId: m.questionId, settlement: settled.get(m.questionId)! }];
    if (m.type === "step.record") return [{ kind: "step", seq: m.seq, digest: m.digest, output: m.output }];
    if (m.type === "run.say") return [{ kind: "say", seq: m.seq, digest: m.digest }];
    return [];
  });
  const asks = sent.filter((m): m is Ask => m.type === "question.ask").sort((a, b) => a.seq - b.seq);
  return { result, sent, says, asks, approvals: asks.filter((a) => a.spec.approval?.tool !== "read_file"), journal: journalAfter, controller };
}

describe("run-tests", () => {
  it("asks to run `npm test`, runs the workspace's real tests once allowed, its output live, and reports them", async () => {
    const run = await drive(runTests, () => ({ outcome: "answered", value: "once" }));
    expect(run.asks).toHaveLength(1);
    expect(run.asks[0]!.spec).toMatchObject({
      kind: "approval",
      prompt: `Run \`npm test\`? ${WORKSPACE_CODE_NOTE}`,
      approval: {
        tool: "shell",
        cwd: ".",
        always: [
          { pattern: "npm test", cwd: "." },
          { pattern: "npm test *", cwd: "." },
        ],
        preview: { type: "command", command: "npm test" },
      },
    });
    expect(run.result).toEqual({ ran: true, exitCode: 0, passed: 2, failed: 0 });
    expect(run.says).toHaveLength(1);
    expect(run.says[0]).toMatch(/^```\n\$ npm test\n/);
    expect(run.says[0]).toContain("node --test");
    expect(run.says[0]).toContain("greets a person by name");
    expect(run.says[0]).toMatch(/The tests passed: 2 of 2\. ✅$/);
    expect(run.sent.some((m) => m.type === "run.progress" && m.text?.startsWith("$ npm test"))).toBe(true);
    expect(run.sent.at(-1)).not.toMatchObject({ type: "run.progress", text: expect.any(String) });
  });

  it("reports failing tests with their count and the exit code", async () => {
    writeFileSync(path.join(workspace.ws(), "src/greet.js"), SAMPLE_PROJECT["src/greet.js"]!.replace("Hello", "Bye"));
    const run = await drive(runTests, () => ({ outcome: "answered", value: "once" }));
    expect(run.result).toEqual({ ran: true, exitCode: 1, passed: 0, failed: 2 });
    expect(run.says[0]).toMatch(/The tests failed \(exit code 1\): 2 of 2 failed\. ❌$/);
  });

  it("says what happened and quotes the feedback when rejected; nothing runs", async () => {
    const run = await drive(runTests, () => ({ outcome: "declined", feedback: "run only the unit tests" }));
    expect(run.says).toEqual(['I did not run the tests. You said: "run only the unit tests".']);
    expect(run.result).toEqual({ ran: false, reason: "rejected", feedback: "run only the unit tests" });
    expect(run.sent.some((m) => m.type === "step.record" || m.type === "run.progress")).toBe(false);
  });

  it("reports a rule's denial in the rule's words", async () => {
    const run = await drive(runTests, () => ({ outcome: "declined", feedback: 'Denied by the rule "shell npm*".' }));
    expect(run.says).toEqual(['I did not run the tests. Denied by the rule "shell npm*".']);
  });
});

describe("testCounts", () => {
  it("reads node --test's summary, TAP or spec", () => {
    expect(testCounts("# tests 3\n# pass 2\n# fail 1\n")).toEqual({ passed: 2, failed: 1 });
    expect(testCounts("ℹ tests 2\nℹ pass 2\nℹ fail 0\n")).toEqual({ passed: 2, failed: 0 });
    expect(testCounts("no summary")).toBeNull();
  });
});

describe("write-changelog", () => {
  it("reads the workspace's changelog, previews the write as a diff from it and writes it once allowed", async () => {
    const before = file("docs/changelog.md");
    const run = await drive(writeChangelog, () => ({ outcome: "answered", value: "always" }));
    expect(run.asks.map((a) => a.spec.approval!.tool)).toEqual(["read_file", "write_file"]);
    const approval = run.approvals[0]!.spec.approval!;
    expect(approval).toMatchObject({ tool: "write_file", subject: "docs/changelog.md", always: [{ pattern: "docs/changelog.md" }, { pattern: "docs/**" }] });
    expect(approval.preview.type).toBe("diff");
    const diff = approval.preview.type === "diff" ? approval.preview.diff : "";
    expect(diff).toMatch(/^--- a\/docs\/changelog\.md\n\+\+\+ b\/docs\/changelog\.md\n/);
    expect(diff).toContain("\n+## 0.2.0\n");
    expect(diff).toContain("\n ## 0.1.0\n");
    expect(file("docs/changelog.md")).toBe(withRelease(before));
    expect(file("docs/changelog.md")).toMatch(/^# Changelog\n\n## 0\.2\.0\n- Approvals: .*\n- Permission rules per session\n\n## 0\.1\.0\n/);
    expect(run.says).toEqual([`Wrote docs/changelog.md: a 0.2.0 section at the top (${file("docs/changelog.md").split("\n").length - 1} lines now). 📝`]);
    // Once there, the section is not added again.
    const again = await drive(writeChangelog, () => ({ outcome: "answered", value: "once" }));
    expect(again.approvals).toEqual([]);
    expect(again.result).toMatchObject({ written: false, reason: "up_to_date" });
  });

  it("makes the changelog when there is none", async () => {
    rmSync(path.join(workspace.ws(), "docs/changelog.md"));
    const run = await drive(writeChangelog, () => ({ outcome: "answered", value: "once" }));
    expect(run.result).toEqual({ written: true, path: "docs/changelog.md" });
    expect(file("docs/changelog.md")).toMatch(/^# Changelog\n\n## 0\.2\.0\n/);
    expect(run.approvals[0]!.spec.approval!.preview).toMatchObject({ type: "diff", diff: expect.stringMatching(/^--- \/dev\/null\n/) });
  });

  it("says so when nobody answered in time, and leaves the file as it was", async () => {
    const before = file("docs/changelog.md");
    const run = await drive(writeChangelog, () => ({ outcome: "timed_out" }));
    expect(run.says).toEqual(["No answer in 30 minutes: denied. I left docs/changelog.md as it was."]);
    expect(run.result).toMatchObject({ written: false, reason: "timed_out" });
    expect(file("docs/changelog.md")).toBe(before);
  });
});

describe("update-docs", () => {
  it("asks two approvals at once, both covered by docs/**, and writes both files", async () => {
    const asked: number[] = [];
    // "Allow always" on the second card; the server then settles the first, which the rule covers.
    const run = await drive(
      updateDocs,
      (_ask, all) => {
        asked.push(all.length);
        return { outcome: "answered", value: "always" };
      },
      { together: 2 },
    );
    expect(asked[0]).toBe(2);
    expect(run.asks.map((a) => [a.spec.approval!.subject, a.spec.approval!.always.at(-1)!.pattern])).toEqual([
      ["docs/getting-started.md", "docs/**"],
      ["docs/approvals.md", "docs/**"],
    ]);
    expect(run.says.at(-1)).toBe("Wrote docs/getting-started.md and docs/approvals.md. 📚");
    expect(run.result).toEqual({ written: ["docs/getting-started.md", "docs/approvals.md"], denied: [] });
    expect(file("docs/getting-started.md")).toBe("# Getting started\n\nRun `npx parley` and open the link it prints.\n");
    expect(file("docs/approvals.md")).toMatch(/^# Approvals\n/);
  });

  it("reports a rejected file with its feedback and does not write it; the other is written", async () => {
    const run = await drive(updateDocs, (ask) =>
      ask.spec.approval!.subject === "docs/approvals.md" ? { outcome: "declined", feedback: "that page is not ready" } : { outcome: "answered", value: "once" },
    );
    expect(run.says.slice(1)).toEqual(['I did not write docs/approvals.md. You said: "that page is not ready".', "Wrote docs/getting-started.md. 📚"]);
    expect(existsSync(path.join(workspace.ws(), "docs/approvals.md"))).toBe(false);
    expect(existsSync(path.join(workspace.ws(), "docs/getting-started.md"))).toBe(true);
  });

  it("replays from its journal without asking, writing or saying anything again, whichever card was answered first", async () => {
    // The second card is settled first: its step finishes first in the live run.
    const live = await drive(updateDocs, () => ({ outcome: "answered", value: "once" }), { newestFirst: true, together: 2 });
    // Positions: the say (0); then for each file, the stamp of what it was, the approval, the write.
    expect(toolSteps(live.sent).map((m) => m.seq)).toEqual([6, 3]);
    rmSync(path.join(workspace.ws(), "docs/getting-started.md"));
    rmSync(path.join(workspace.ws(), "docs/approvals.md"));
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
    expect(existsSync(path.join(workspace.ws(), "docs/getting-started.md"))).toBe(false);
  });
});
