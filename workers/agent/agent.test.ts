import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { SAMPLE_PROJECT } from "../../lib/server/workspace/sample-project";
import { workspaceEachTest } from "../tools/tool-harness";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { createRuntime, RunCancelled, type CallSettlement, type Settlement } from "../runtime";
import { runAgentLoop, type ReplyWriter } from "./loop";
import type { ModelChoice } from "./provider";
import { createScriptedModel, SIMULATED_KEY } from "./scripted-model";
import { AgentError } from "../runtime";
import * as demoFunctions from "../functions/demo-functions";
import { toolFunctionsOf } from "../functions/chat";
import { isAgentFunction } from "../runtime";
import { WORKSPACE_CODE_NOTE } from "../tools/shell";

const COMMANDS = toolFunctionsOf({ functions: Object.values(demoFunctions).filter(isAgentFunction), failures: [] });

type Ask = Extract<ChildToParent, { type: "question.ask" }>;

/** The workspace the tools work in: a new one, seeded with the sample project, for each test. */
const workspace = workspaceEachTest("parley-agent-");
type RunCall = Extract<ChildToParent, { type: "run.call" }>;
type Answerer = (ask: Ask) => Omit<Settlement, "feedback" | "value"> & Partial<Settlement>;

/** A runtime on a fake host that answers every question with `answer` and keeps a journal of what was done. */
function harness({ answer, journal = [], canAsk = true, child }: { answer: Answerer; journal?: JournalRecord[]; canAsk?: boolean; child?: (call: RunCall) => CallSettlement }) {
  const sent: ChildToParent[] = [];
  const settled = new Map<string, Settlement>();
  const calls = new Map<number, CallSettlement>();
  let n = 0;
  const controller = createRuntime({
    runId: "run-1",
    sessionId: "s-1",
    canAsk,
    journal,
    workspace: workspace.ws(),
    newId: () => `q${++n}`,
    send(m) {
      sent.push(m);
      if (m.type === "question.ask") {
        const s = { value: null, feedback: null, ...answer(m) };
        settled.set(m.questionId, s);
        setTimeout(() => controller.settle(m.questionId, s), 0);
      }
      if (m.type === "run.call" && child) {
        // The server would start the child run; here it ends at once with what `child` says.
        const s = child(m);
        calls.set(m.seq, s);
        setTimeout(() => controller.settleCall(m.seq, s), 0);
      }
    },
  });
  const asks = () => sent.filter((m): m is Ask => m.type === "question.ask");
  const says = () => sent.flatMap((m) => (m.type === "run.say" ? [m.text] : []));
  /** The journal the server would hand a resumed run. */
  const recorded = (): JournalRecord[] => [
    ...journal,
    ...sent.flatMap((m): JournalRecord[] => {
      if (m.type === "step.record") return [{ kind: "step", seq: m.seq, digest: m.digest, output: m.output }];
      if (m.type === "run.say") return [{ kind: "say", seq: m.seq, digest: m.digest, text: m.text }];
      if (m.type === "question.ask") return [{ kind: "question", seq: m.seq, digest: m.digest, questionId: m.questionId, settlement: settled.get(m.questionId) ?? null }];
      if (m.type === "run.call") return [{ kind: "call", seq: m.seq, digest: m.digest, childRunId: `child-${m.seq}`, settlement: calls.get(m.seq) ?? null }];
      return [];
    }),
  ];
  return { controller, rt: controller.rt, sent, asks, says, recorded };
}

function scripted() {
  const calls: string[][] = [];
  const model = createScriptedModel({ onCall: (o) => calls.push(o.tools?.map((t) => t.name) ?? []) });
  const choice: ModelChoice = { provider: "scripted", model, maxRetries: 0 };
  return { choice, calls };
}

const allowAndAnswer =
  (clarifyAnswer: Settlement): Answerer =>
  (ask) =>
    ask.spec.kind === "approval" ? { outcome: "answered", value: "once" } : clarifyAnswer;

describe("the agent loop with the scripted model", () => {
  it("greets and says what it can do, using the session's history", async () => {
    const { choice } = scripted();
    const h = harness({ answer: () => ({ outcome: "answered" }) });
    const hello = await runAgentLoop(h.rt, { choice, text: "hello" });
    expect(hello.reply).toMatch(/^Hello!/);
    const what = await runAgentLoop(h.rt, {
      choice,
      text: "What can you do?",
      history: [
        { role: "user", text: "hello" },
        { role: "agent", text: hello.reply },
      ],
    });
    expect(what.reply).toMatch(/run the tests/);
    expect(h.says()).toEqual([hello.reply, what.reply]);
  });

  it("drives a multi-step turn: read_file, shell (approved) and a clarify answered on a card; the tools really run in the workspace", async () => {
    const { choice, calls } = scripted();
    const h = harness({ answer: allowAndAnswer({ outcome: "answered", value: "Large", feedback: null }) });
    const deltas: string[] = [];
    const ends: Array<{ stopped?: boolean } | undefined> = [];
    const reply = (): ReplyWriter => ({ append: (d) => deltas.push(d), end: (o) => ends.push(o) });
    const result = await runAgentLoop(h.rt, { choice, text: "Read README.md, run the tests and order a coffee", reply });
    expect(h.asks().map((a) => [a.spec.kind, a.spec.prompt])).toEqual([
      ["approval", `Run \`npm test\`? ${WORKSPACE_CODE_NOTE}`],
      ["approval", "Read README.md?"],
      ["question", "What size should the coffee be?"],
    ]);
    expect(h.asks()[0]!.spec.approval).toMatchObject({ tool: "shell", dangerous: true });
    expect(h.asks()[1]!.spec.approval).toMatchObject({ tool: "read_file", dangerous: false });
    expect(h.asks()[2]!.spec).toMatchObject({ options: ["Small", "Medium", "Large"], multi: false });
    expect(calls).toHaveLength(4);
    expect(calls[0]).toEqual(["shell", "write_file", "edit_file", "read_file", "list_files", "search_files", "clarify"]);
    expect(result).toMatchObject({ steps: 4, toolCalls: 3 });
    expect(result.reply).toMatch(/tests ran: all passed[^]*Here is README\.md:[^]*Ordering a large coffee/);
    expect(result.reply).toContain(SAMPLE_PROJECT["README.md"]!.slice(0, 200));
    // The real results are in the journal: the test run's exit code and output, the file's content.
    const steps = h.sent.flatMap((m) => (m.type === "step.record" && m.name !== "model" ? [m.output] : []));
    expect(steps[0]).toMatchObject({ command: "npm test", exitCode: 0, output: expect.stringContaining("greets a person by name") });
    expect(steps[1]).toMatchObject({ path: "README.md", content: SAMPLE_PROJECT["README.md"] });
    // Streamed in small chunks, one writer per model step.
    expect(deltas.length).toBeGreaterThan(10);
    expect(deltas.every((d) => d.length <= 6)).toBe(true);
    expect(ends).toHaveLength(4);
    expect(h.says()).toEqual([]);
  });

  it("asks clarify when a coffee has no size; a decline and a timeout reach the model as text", async () => {
    const declined = harness({ answer: () => ({ outcome: "declined", feedback: "not now" }) });
    const a = await runAgentLoop(declined.rt, { choice: scripted().choice, text: "order a coffee" });
    expect(a.reply).toContain("the user declined: not now");
    const timedOut = harness({ answer: () => ({ outcome: "timed_out" }) });
    const b = await runAgentLoop(timedOut.rt, { choice: scripted().choice, text: "order a coffee" });
    expect(b.reply).toContain("no answer within 30 minutes");
  });

  it("writes the changelog in the workspace once approved, and nothing when rejected", async () => {
    const changelog = path.join(workspace.ws(), "docs/changelog.md");
    const rejected = harness({ answer: () => ({ outcome: "declined", feedback: "later" }) });
    const no = await runAgentLoop(rejected.rt, { choice: scripted().choice, text: "write the changelog" });
    expect(no.reply).toMatch(/I left the changelog as it was: The user rejected write_file `docs\/changelog\.md`: later/);
    expect(readFileSync(changelog, "utf8")).toBe(SAMPLE_PROJECT["docs/changelog.md"]);
    const h = harness({ answer: () => ({ outcome: "answered", value: "once" }) });
    const yes = await runAgentLoop(h.rt, { choice: scripted().choice, text: "write the changelog" });
    expect(yes.reply).toMatch(/I wrote docs\/changelog\.md/);
    expect(readFileSync(changelog, "utf8")).toBe("# Changelog\n\n## 0.2.0\n\n- A model-driven chat with tools and clarifying questions.\n");
    expect(h.asks()[0]!.spec.approval!.preview).toMatchObject({ type: "diff", diff: expect.stringContaining("\n-## 0.1.0\n") });
  });

  it("a path out of the workspace (nothing asked) or a missing file reaches the model as text", async () => {
    const h = harness({ answer: () => ({ outcome: "answered", value: "once" }) });
    const out = await runAgentLoop(h.rt, { choice: scripted().choice, text: "read ../secret.txt" });
    expect(out.reply).toMatch(/I could not read the file: Invalid input for read_file: path: a path inside the workspace \(it may not climb out with \.\.\)/);
    const missing = await runAgentLoop(h.rt, { choice: scripted().choice, text: "read nothing-here.md" });
    expect(missing.reply).toMatch(/^Let me read that\.\n\nI could not read the file: `nothing-here\.md` does not exist\.$/);
    expect(h.asks().map((a) => a.spec.approval!.subject)).toEqual(["nothing-here.md"]);
    expect(existsSync(path.join(workspace.ws(), "nothing-here.md"))).toBe(false);
  });

  it("hands a rejected approval's message to the model as the tool result", async () => {
    const h = harness({ answer: () => ({ outcome: "declined", feedback: "not on Fridays" }) });
    const r = await runAgentLoop(h.rt, { choice: scripted().choice, text: "run the tests" });
    expect(r.reply).toMatch(/I did not run the tests: The user rejected shell `npm test`: not on Fridays/);
  });

  it("a simulated provider error ends the turn as a readable AgentError without the key; the same message again goes through", async () => {
    const { choice } = scripted();
    const h = harness({ answer: () => ({ outcome: "answered" }) });
    const ends: Array<{ stopped?: boolean } | undefined> = [];
    const reply = (): ReplyWriter => ({ append: () => {}, end: (o) => ends.push(o) });
    const failed = await runAgentLoop(h.rt, { choice, text: "Please simulate a provider error", reply }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(AgentError);
    const message = (failed as AgentError).message;
    expect(message).toBe("The model provider (scripted) failed (HTTP 503). Retry in a moment.");
    expect(`${message} ${String((failed as AgentError).cause)}`).not.toContain(SIMULATED_KEY);
    expect(ends).toEqual([{ stopped: false }]);
    const retried = await runAgentLoop(h.rt, { choice, text: "Please simulate a provider error", history: [{ role: "user", text: "Please simulate a provider error" }] });
    expect(retried.reply).toMatch(/retry went through/);
  });

  it("does not offer clarify when nobody can answer", async () => {
    const { choice, calls } = scripted();
    const h = harness({ answer: () => ({ outcome: "answered" }), canAsk: false });
    const r = await runAgentLoop(h.rt, { choice, text: "order a coffee" });
    expect(calls[0]).not.toContain("clarify");
    expect(h.asks()).toHaveLength(0);
    expect(r.reply).toMatch(/offline scripted model|coffee/);
  });

  it("replay: a resumed run gets recorded steps back and calls the model only for new steps", async () => {
    // First run: parked while the clarify question waits.
    const first = scripted();
    const pending = new Set<string>();
    const h1 = harness({
      answer: (ask) => {
        if (ask.spec.kind === "approval") return { outcome: "answered", value: "once" };
        pending.add(ask.questionId);
        return { outcome: "answered", value: "Medium" };
      },
    });
    const done = runAgentLoop(h1.rt, { choice: first.choice, text: "run the tests and order a coffee" });
    await done;
    expect(first.calls).toHaveLength(3);
    // The journal as it stood when the question was asked: its answer came later.
    const journal = h1.recorded();
    const lastModel = journal.filter((r) => r.kind === "step").at(-1)!;
    // Cut before the last model step and its reply (claimed just before it): the run stopped after the answer.
    const cut = journal.filter((r) => r.seq < lastModel.seq - 1);
    expect(journal.find((r) => r.seq === lastModel.seq - 1)?.kind).toBe("say");
    const resumed = scripted();
    const h2 = harness({ answer: () => ({ outcome: "answered", value: "never used" }), journal: cut });
    const r = await runAgentLoop(h2.rt, { choice: resumed.choice, text: "run the tests and order a coffee" });
    expect(resumed.calls).toHaveLength(1);
    expect(h2.asks()).toHaveLength(0);
    expect(r.reply).toContain("Ordering a medium coffee");
    // Only the new step's reply is sent again: the recorded ones were stored by the first run.
    expect(h2.says()).toEqual([expect.stringContaining("Ordering a medium coffee")]);
    expect(h1.says()[0]).toBe("I'll run the tests.");
  });

  it("Stop during a streaming model call ends the writer as stopped, records no step and throws RunCancelled", async () => {
    const model = createScriptedModel({ chunkDelayMs: 5 });
    const h = harness({ answer: () => ({ outcome: "answered" }) });
    const deltas: string[] = [];
    const ends: Array<{ stopped?: boolean } | undefined> = [];
    const reply = (): ReplyWriter => ({
      append: (d) => {
        deltas.push(d);
        if (deltas.length === 2) h.controller.cancel("Stopped by the user.");
      },
      end: (o) => ends.push(o),
    });
    const err = await runAgentLoop(h.rt, { choice: { provider: "scripted", model, maxRetries: 0 }, text: "what can you do?", reply }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RunCancelled);
    expect(deltas.length).toBeLessThan(5);
    expect(ends).toEqual([{ stopped: true }]);
    expect(h.sent.filter((m) => m.type === "step.record")).toHaveLength(0);
  });

  describe("start_demo: the demo functions as tools", () => {
    const demoCalls = (h: { sent: ChildToParent[] }) => h.sent.filter((m): m is RunCall => m.type === "run.call");

    it("is offered only with the slash-command table; a sentence asking for a demo starts it as a child run and its result reaches the reply", async () => {
      const { choice, calls } = scripted();
      const h = harness({ answer: () => ({ outcome: "answered" }), child: () => ({ status: "succeeded", result: { deployed: true, environment: "staging" }, error: null }) });
      const r = await runAgentLoop(h.rt, { choice, text: "Please deploy the app", demos: COMMANDS });
      expect(calls[0]).toContain("start_demo");
      expect(demoCalls(h).map((m) => [m.functionName, m.input])).toEqual([["deploy", null]]);
      expect(r).toMatchObject({ steps: 2, toolCalls: 1 });
      expect(r.reply).toMatch(/^Starting the deploy demo\.[^]*The deploy demo finished\. It returned: \{"deployed":true,"environment":"staging"\}/);

      const evening = harness({ answer: () => ({ outcome: "answered" }), child: () => ({ status: "failed", result: null, error: "nobody answered" }) });
      const e = await runAgentLoop(evening.rt, { choice: scripted().choice, text: "can you plan my evening?", demos: COMMANDS });
      expect(demoCalls(evening).map((m) => m.functionName)).toEqual(["plan-evening"]);
      expect(e.reply).toContain("The evening demo did not finish: plan-evening failed: nobody answered");

      // Without the table the tool is not offered, and a word inside a sentence starts nothing.
      const plain = scripted();
      const none = harness({ answer: () => ({ outcome: "answered" }), child: () => ({ status: "succeeded", result: null, error: null }) });
      await runAgentLoop(none.rt, { choice: plain.choice, text: "Please deploy the app" });
      await runAgentLoop(none.rt, { choice: plain.choice, text: "I want to rename my code name", demos: COMMANDS });
      expect(plain.calls[0]).not.toContain("start_demo");
      expect(demoCalls(none)).toHaveLength(0);
    });

    it("replay: a resumed run gets the child run's recorded result back without starting it again", async () => {
      const first = scripted();
      const h1 = harness({ answer: () => ({ outcome: "answered" }), child: () => ({ status: "succeeded", result: { deployed: true, environment: "preview" }, error: null }) });
      await runAgentLoop(h1.rt, { choice: first.choice, text: "deploy the app", demos: COMMANDS });
      expect(first.calls).toHaveLength(2);
      const journal = h1.recorded();
      expect(journal.filter((r) => r.kind === "call")).toHaveLength(1);
      // Cut before the last model step and its reply: the run stopped after the child's result arrived.
      const lastModel = journal.filter((r) => r.kind === "step").at(-1)!;
      const cut = journal.filter((r) => r.seq < lastModel.seq - 1);
      const resumed = scripted();
      const h2 = harness({ answer: () => ({ outcome: "answered" }), journal: cut, child: () => ({ status: "failed", result: null, error: "started again" }) });
      const r = await runAgentLoop(h2.rt, { choice: resumed.choice, text: "deploy the app", demos: COMMANDS });
      expect(demoCalls(h2)).toHaveLength(0);
      expect(resumed.calls).toHaveLength(1);
      expect(r.reply).toContain('It returned: {"deployed":true,"environment":"preview"}');
    });
  });
});
