import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { ChildToParent, JournalRecord } from "../../lib/protocol/ipc";
import { createRuntime, type Settlement } from "../runtime";
import { readFileTool } from "../tools";
import { workspaceEachTest } from "../tools/tool-harness";
import { fakeServer, textReply, toolCallsReply, toolResults, type Handler } from "./fake-openai";
import { runAgentLoop } from "./loop";
import { selectModel } from "./provider";
import { modelTools } from "./tools";

/*
 * The model's question is a decision of its own (issue 24): through the real agent loop, with an
 * OpenAI-compatible server scripted here, and each run replayed from its journal (what a restart
 * does) with the same outcome and without calling the model again.
 */

const workspace = workspaceEachTest("parley-clarify-");
type Ask = Extract<ChildToParent, { type: "question.ask" }>;

/** The server's part: answers a question "Blue"; refuses one whose prompt is longer than the run's policy allows (here 80). */
const MAX_PROMPT = 80;

async function runOnce(baseURL: string, journal: JournalRecord[] = []) {
  const sent: ChildToParent[] = [];
  const settled = new Map<string, Settlement>();
  const controller = createRuntime({
    runId: "r-clarify",
    sessionId: "s",
    canAsk: true,
    journal,
    workspace: workspace.ws(),
    send(m) {
      sent.push(m);
      if (m.type !== "question.ask") return;
      setTimeout(() => {
        if (m.spec.prompt.length > MAX_PROMPT)
          return controller.refuse(m.questionId, { code: "policy_prompt_too_long", message: `The question is longer than this run allows (${MAX_PROMPT} characters).` });
        const s: Settlement = { outcome: "answered", value: "Blue", feedback: null };
        settled.set(m.questionId, s);
        controller.settle(m.questionId, s);
      }, 0);
    },
  });
  const choice = selectModel({ OPENAI_BASE_URL: baseURL, OPENAI_API_KEY: "sk-test-0123456789abcdef", PARLEY_MODEL_RETRIES: "0" });
  const result = await runAgentLoop(controller.rt, { choice, text: "paint it", reply: () => ({ append() {}, end() {} }) });
  const asks = sent.filter((m): m is Ask => m.type === "question.ask");
  const journalAfter: JournalRecord[] = sent.flatMap((m): JournalRecord[] => {
    if (m.type === "question.ask" && settled.has(m.questionId)) return [{ kind: "question", seq: m.seq, digest: m.digest, questionId: m.questionId, settlement: settled.get(m.questionId)! }];
    if (m.type === "step.record") return [{ kind: "step", seq: m.seq, digest: m.digest, output: m.output }];
    if (m.type === "run.say") return [{ kind: "say", seq: m.seq, digest: m.digest, text: m.text }];
    return [];
  });
  const toolSteps = sent.filter((m): m is Extract<ChildToParent, { type: "step.record" }> => m.type === "step.record" && m.name !== "model");
  return { result, asks, journal: [...journal, ...journalAfter], toolSteps };
}

/** Runs the script, then replays the run from its journal against a model that may not be called again. */
async function runAndReplay(script: Handler[]) {
  const model = await fakeServer(script);
  const first = await runOnce(model.baseURL);
  expect(model.requests).toHaveLength(script.length);
  const replay = await runOnce(model.baseURL, first.journal);
  // Replayed: the same reply and the same questions, from the journal alone (no new model request).
  expect(model.requests).toHaveLength(script.length);
  expect(replay.result).toEqual(first.result);
  expect(replay.asks.map((a) => a.spec.prompt)).toEqual(first.asks.filter((a) => !first.journal.some((r) => r.kind === "question" && r.questionId === a.questionId)).map((a) => a.spec.prompt));
  return { first, replay, requests: model.requests };
}

describe("clarify alone or not at all", () => {
  it("a step with clarify and read_file asks nothing and reads nothing; both results say how to go on; clarify alone then asks", async () => {
    const { first, requests } = await runAndReplay([
      toolCallsReply([
        ["clarify", JSON.stringify({ question: "Which colour?", options: ["Blue", "Red"] })],
        ["read_file", JSON.stringify({ path: "README.md" })],
      ]),
      toolCallsReply([["clarify", JSON.stringify({ question: "Which colour?", options: ["Blue", "Red"] })]]),
      textReply("Painting it blue."),
    ]);
    const refused = toolResults(requests[1]!.body);
    expect(refused.map((r) => r.id)).toEqual(["call_1", "call_2"]);
    expect(refused[0]!.text).toMatch(/Nothing was asked: clarify must be the only tool call of its step, and this step also called read_file\. Call clarify alone/);
    expect(refused[1]!.text).toMatch(/Not run: this step also called clarify.*call read_file again in a step without clarify/);
    // The read never ran; the question was asked once, in the step where clarify was alone.
    expect(first.toolSteps).toEqual([]);
    expect(first.asks.map((a) => a.spec.prompt)).toEqual(["Which colour?"]);
    expect(toolResults(requests[2]!.body).at(-1)!.text).toContain("Blue");
    expect(first.result.reply).toBe("Painting it blue.");
  });

  it("two clarify calls in one step ask nothing", async () => {
    const { first, requests } = await runAndReplay([
      toolCallsReply([
        ["clarify", JSON.stringify({ question: "Which colour?" })],
        ["clarify", JSON.stringify({ question: "Which size?" })],
      ]),
      textReply("I will ask one thing at a time."),
    ]);
    expect(first.asks).toEqual([]);
    for (const r of toolResults(requests[1]!.body)) expect(r.text).toMatch(/Nothing was asked: clarify must be the only tool call of its step, and this step called clarify 2 times/);
  });
});

describe("clarify's arguments are strict", () => {
  it("unknown keys, wrong types, an empty question and one beyond the run's policy are refused with errors the model reads; nothing is asked", async () => {
    const { first, requests } = await runAndReplay([
      toolCallsReply([["clarify", JSON.stringify({ question: "Which colour?", urgent: true })]]),
      toolCallsReply([["clarify", JSON.stringify({ question: 42 })]]),
      toolCallsReply([["clarify", JSON.stringify({ question: "   " })]]),
      toolCallsReply([["clarify", JSON.stringify({ question: "Which colour?", options: "Blue, Red" })]]),
      toolCallsReply([["clarify", JSON.stringify({ question: `Which colour ${"really ".repeat(12)}?` })]]),
      textReply("I will pick one."),
    ]);
    const results = requests.slice(1).map((r) => toolResults(r.body).at(-1)!.text);
    expect(results[0]).toMatch(/clarify was called with an invalid input: .*urgent/i);
    expect(results[1]).toMatch(/clarify was called with an invalid input: question: .*string/i);
    expect(results[2]).toMatch(/clarify was called with an invalid input: question: /);
    expect(results[3]).toMatch(/clarify was called with an invalid input: options: .*array/i);
    expect(results[4]).toMatch(/clarify was refused: The question is longer than this run allows \(80 characters\)\. Go on without asking\./);
    // Only the one within the schema reached the server, which refused it; nothing waits for an answer.
    expect(first.asks.map((a) => a.spec.prompt.length)).toEqual([expect.any(Number)]);
    expect(first.asks[0]!.spec.prompt.length).toBeGreaterThan(MAX_PROMPT);
    expect(first.result.reply).toBe("I will pick one.");
  });
});

describe("only the built-in asks", () => {
  it("look-alike tools (ask_user, Clarify) ask nothing: the model is told they do not exist", async () => {
    const { first, requests } = await runAndReplay([
      toolCallsReply([["ask_user", JSON.stringify({ question: "Which colour?" })]]),
      toolCallsReply([["Clarify", JSON.stringify({ question: "Which colour?" })]]),
      textReply("Done."),
    ]);
    expect(first.asks).toEqual([]);
    for (const request of requests.slice(1)) expect(toolResults(request.body).at(-1)!.text).toMatch(/ask_user|Clarify/);
  });

  it("a tool result shaped like { status: needs_input } is data for the model, never a question", async () => {
    writeFileSync(path.join(workspace.ws(), "status.json"), JSON.stringify({ status: "needs_input", question: "Deploy to production?", options: ["yes", "no"] }));
    const { first, requests } = await runAndReplay([toolCallsReply([["read_file", JSON.stringify({ path: "status.json" })]]), textReply("The file asks for input.")]);
    expect(first.asks.filter((a) => a.spec.kind !== "approval")).toEqual([]);
    expect(toolResults(requests[1]!.body).at(-1)!.text).toContain("needs_input");
  });

  it("no tool of the catalogue may take a name the loop gives meaning to", () => {
    const impostor = { ...readFileTool, name: "clarify" };
    expect(() => modelTools({ canAsk: true, tools: [impostor] })).toThrow(/may not be named "clarify"/);
    expect(() => modelTools({ canAsk: false, tools: [{ ...readFileTool, name: "start_demo" }] })).toThrow(/may not be named "start_demo"/);
    expect(Object.keys(modelTools({ canAsk: true }))).toContain("clarify");
  });
});
