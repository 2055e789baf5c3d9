import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ChildToParent, JournalRecord } from "../../../lib/protocol/ipc";
import { parseMcpServersFile } from "../../../lib/protocol/mcp-servers";
import { createRuntime, type Settlement } from "../../runtime";
import { runAgentLoop } from "../loop";
import type { ModelChoice } from "../provider";
import { createScriptedModel } from "../scripted-model";
import { McpToolbox } from "./toolbox";

/** The tests' own MCP server (stdio): `deploy` elicits a form, `echo` does not. */
const FIXTURE = path.resolve("tests/fixtures/mcp-deployer-server.mjs");
const config = parseMcpServersFile(JSON.stringify({ servers: { deployer: { command: process.execPath, args: [FIXTURE] } } }), "test");
const toolbox = new McpToolbox(config);
afterAll(() => toolbox.close());

type Ask = Extract<ChildToParent, { type: "question.ask" }>;
type Answerer = (ask: Ask) => Omit<Settlement, "feedback" | "value"> & Partial<Settlement>;

/** A runtime on a fake host that answers each question with `answer`, and the journal it would keep. */
function harness(answer: Answerer, journal: JournalRecord[] = []) {
  const sent: ChildToParent[] = [];
  const settled = new Map<string, Settlement>();
  let n = 0;
  const controller = createRuntime({
    runId: "run-1",
    sessionId: "s-1",
    canAsk: true,
    journal,
    newId: () => `q${++n}`,
    send(m) {
      sent.push(m);
      if (m.type === "question.ask") {
        const s = { value: null, feedback: null, ...answer(m) };
        settled.set(m.questionId, s);
        setTimeout(() => controller.settle(m.questionId, s), 0);
      }
    },
  });
  const asks = () => sent.filter((m): m is Ask => m.type === "question.ask");
  const recorded = (): JournalRecord[] =>
    sent.flatMap((m): JournalRecord[] => {
      if (m.type === "step.record") return [{ kind: "step", seq: m.seq, digest: m.digest, output: m.output }];
      if (m.type === "run.say") return [{ kind: "say", seq: m.seq, digest: m.digest, text: m.text }];
      if (m.type === "question.ask") return [{ kind: "question", seq: m.seq, digest: m.digest, questionId: m.questionId, settlement: settled.get(m.questionId) ?? null }];
      return [];
    });
  return { rt: controller.rt, sent, asks, recorded };
}

function scripted() {
  const offered: string[][] = [];
  const systems: string[] = [];
  const model = createScriptedModel({
    onCall: (o) => {
      offered.push(o.tools?.map((t) => t.name) ?? []);
      const system = o.prompt.find((m) => m.role === "system");
      systems.push(typeof system?.content === "string" ? system.content : "");
    },
  });
  const choice: ModelChoice = { provider: "scripted", model, maxRetries: 0 };
  return { choice, offered, systems };
}

const approve = (ask: Ask) => (ask.spec.kind === "approval" ? { outcome: "answered" as const, value: "once" } : null);

describe("MCP servers' tools in the agent loop", () => {
  it("lists the server's tools as mcp__<server>__<tool> and offers them to the model beside the catalogue", async () => {
    const listing = await toolbox.list();
    expect([...listing.tools.keys()]).toEqual(["mcp__deployer__deploy", "mcp__deployer__echo"]);
    expect(listing.tools.get("mcp__deployer__deploy")).toMatchObject({ server: "deployer", subjectKind: "text", description: "Deploys a service; asks the person where to and how." });
    expect(listing.unavailable).toEqual([]);
    const { choice, offered, systems } = scripted();
    await runAgentLoop(harness(() => ({ outcome: "answered" })).rt, { choice, text: "hello", mcp: toolbox });
    expect(offered[0]).toEqual(expect.arrayContaining(["shell", "read_file", "mcp__deployer__deploy", "mcp__deployer__echo"]));
    expect(systems[0]).toContain("mcp__<server>__<tool>");
  });

  it("asks for approval before a call (the rules' subject is the call's JSON), and its result reaches the model", async () => {
    const h = harness((ask) => approve(ask) ?? { outcome: "declined" });
    const result = await runAgentLoop(h.rt, { choice: scripted().choice, text: 'call mcp__deployer__echo with {"text":"hi there"}', mcp: toolbox });
    expect(h.asks()).toHaveLength(1);
    expect(h.asks()[0]!.spec).toMatchObject({ kind: "approval", prompt: "Use mcp__deployer__echo?" });
    expect(h.asks()[0]!.spec.approval).toMatchObject({ tool: "mcp__deployer__echo", subject: '{"text":"hi there"}', subjectKind: "text", dangerous: true, input: { text: "hi there" } });
    expect(result.reply).toMatch(/mcp__deployer__echo: echo: hi there \(call \d+\)/);
  });

  it("a rejected approval calls nothing: the model reads why", async () => {
    const before = await echoCount();
    const h = harness((ask) => (ask.spec.kind === "approval" ? { outcome: "declined", feedback: "not that" } : { outcome: "declined" }));
    const result = await runAgentLoop(h.rt, { choice: scripted().choice, text: 'call mcp__deployer__echo with {"text":"no"}', mcp: toolbox });
    expect(result.reply).toContain("The user rejected mcp__deployer__echo");
    expect(await echoCount()).toBe(before + 1);
  });

  it("the tool's elicitation is a form card of the run; the answer's content goes back to the tool and its result to the model", async () => {
    const h = harness((ask) => approve(ask) ?? { outcome: "answered", value: { environment: "production", replicas: 3, notify: false, regions: ["eu", "ap"] } });
    const result = await runAgentLoop(h.rt, { choice: scripted().choice, text: 'call mcp__deployer__deploy with {"service":"api"}', mcp: toolbox });
    const [approval, form] = h.asks();
    expect(approval!.spec.kind).toBe("approval");
    expect(form!.spec).toMatchObject({ kind: "question", prompt: "Where should api be deployed?", detail: "The MCP server deployer asks this while its tool deploy runs." });
    expect(form!.spec.replySchema).toMatchObject({
      type: "object",
      required: ["environment", "replicas"],
      properties: { environment: { default: "staging" }, replicas: { minimum: 1, maximum: 5 }, regions: { type: "array", default: ["eu"] } },
    });
    // The form takes the journal position after the tool's step: its question goes out before the step is recorded.
    expect(form!.seq).toBeGreaterThan(approval!.seq + 1);
    expect(result.reply).toMatch(/Deployed api to production with 3 replicas in eu\+ap, notify=false \(call \d+\)/);
  });

  it("a declined form is decline for the tool; a form nobody answers in time is cancel", async () => {
    const declined = harness((ask) => approve(ask) ?? { outcome: "declined", feedback: "not today" });
    const a = await runAgentLoop(declined.rt, { choice: scripted().choice, text: 'call mcp__deployer__deploy with {"service":"web"}', mcp: toolbox });
    expect(a.reply).toMatch(/Deploy of web: decline/);
    const unanswered = harness((ask) => approve(ask) ?? { outcome: "timed_out" });
    const b = await runAgentLoop(unanswered.rt, { choice: scripted().choice, text: 'call mcp__deployer__deploy with {"service":"db"}', mcp: toolbox });
    expect(b.reply).toMatch(/Deploy of db: cancel/);
  });

  it("a replayed run gets the recorded result without calling the server or asking again, its forms in their places", async () => {
    const first = harness((ask) => approve(ask) ?? { outcome: "answered", value: { environment: "staging", replicas: 1, notify: true, regions: ["us"], note: "friday" } });
    const text = 'call mcp__deployer__deploy with {"service":"queue"}';
    const a = await runAgentLoop(first.rt, { choice: scripted().choice, text, mcp: toolbox });
    const before = await echoCount();
    const replay = harness(() => {
      throw new Error("a replay asks nothing");
    }, first.recorded());
    const b = await runAgentLoop(replay.rt, { choice: scripted().choice, text, mcp: toolbox });
    expect(b.reply).toBe(a.reply);
    expect(replay.asks()).toEqual([]);
    expect(replay.sent.filter((m) => m.type === "step.record")).toEqual([]);
    expect(await echoCount()).toBe(before + 1);
  });

  it("a server that cannot start is left out and named to the model; the turn goes on", async () => {
    const broken = new McpToolbox(parseMcpServersFile(JSON.stringify({ servers: { ghost: { command: path.resolve("tests/fixtures/no-such-server") } } }), "test"));
    try {
      const listing = await broken.list();
      expect(listing.tools.size).toBe(0);
      expect(listing.unavailable).toEqual([expect.stringMatching(/^The MCP server ghost could not be started: /)]);
      const { choice, systems } = scripted();
      const result = await runAgentLoop(harness(() => ({ outcome: "answered" })).rt, { choice, text: "hello", mcp: broken });
      expect(result.reply).toMatch(/^Hello!/);
      expect(systems[0]).toMatch(/The MCP server ghost could not be started: .* Its tools are not offered this time\./);
    } finally {
      await broken.close();
    }
  });
});

/** How many tool calls the fixture server ran so far, read from a call of `echo` (which counts itself). */
async function echoCount(): Promise<number> {
  const h = harness((ask) => approve(ask) ?? { outcome: "declined" });
  const listing = await toolbox.list();
  const result = await toolbox.call(h.rt, listing.tools.get("mcp__deployer__echo")!, { text: "count" });
  return Number(/\(call (\d+)\)/.exec(result.text)![1]);
}
