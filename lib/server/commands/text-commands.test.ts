import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeParley, type FakeParley } from "../../../tests/helpers/fakes";
import { DEFAULT_POLICY } from "../../protocol/policy";
import { QuestionSpecSchema, type Question, type QuestionSpecInput } from "../../protocol/question";
import type { TextCommandResult } from "./text-commands";

let app: FakeParley;
let sessionId: string;
let runId: string;
let seq = 0;

beforeEach(async () => {
  app = await startFakeParley();
  sessionId = (await app.parley.sessions.createSession({ title: "text" })).id;
  runId = (await app.parley.runs.startRun({ sessionId, functionName: "f", input: {} })).id;
});
afterEach(async () => {
  await app.close();
});

const ask = (spec: Partial<QuestionSpecInput>): Promise<Question> =>
  app.parley.questions.create({
    id: randomUUID(),
    run: { id: runId, sessionId, functionName: "f", policy: DEFAULT_POLICY },
    seq: ++seq,
    digest: `d${seq}`,
    spec: QuestionSpecSchema.parse({ kind: "question", prompt: "Which region?", options: ["us", "eu"], timeoutMs: null, ...spec }),
  });
const send = async (text: string) => (await app.parley.postMessage({ sessionId, text })) as TextCommandResult;
const messages = async () => (await app.parley.sessions.getSnapshot({ id: sessionId })).messages.map((m) => [m.role, m.text]);

describe("text commands through Parley.postMessage", () => {
  it("/answer by number answers the question as the card would, closedBy text, and replies without starting a run", async () => {
    const q = await ask({});
    const runsBefore = (await app.parley.sessions.getSnapshot({ id: sessionId })).runs.length;
    const result = await send(`/answer ${q.id.slice(0, 6)} 2`);
    expect(result).toMatchObject({ command: "answer", outcome: "answered", question: { id: q.id, status: "answered", answer: "eu", closedBy: "text" } });
    expect(result.reply).toMatchObject({ role: "system", text: "Answered 'Which region?' with eu." });
    expect(await app.parley.questions.getQuestion({ id: q.id })).toMatchObject({ status: "answered", answer: "eu", closedBy: "text" });
    const snapshot = await app.parley.sessions.getSnapshot({ id: sessionId });
    expect(snapshot.runs.length).toBe(runsBefore);
    expect(await messages()).toEqual([
      ["user", `/answer ${q.id.slice(0, 6)} 2`],
      ["system", "Answered 'Which region?' with eu."],
    ]);
    // Too late: the question is closed.
    expect(await send(`/answer ${q.id.slice(0, 6)} us`)).toMatchObject({ outcome: "already_answered", reply: { text: "Already answered with a text command." } });
  });

  it("/decline with feedback and the id left out; a label by any case", async () => {
    const q = await ask({});
    expect(await send("/decline not today")).toMatchObject({ outcome: "declined", question: { status: "declined", feedback: "not today", closedBy: "text" } });
    const r = await ask({ prompt: "Size?", options: ["Small", "Large"] });
    expect(await send("/answer LARGE")).toMatchObject({ outcome: "answered", question: { id: r.id, answer: "Large" } });
    expect(q.id).not.toBe(r.id);
  });

  it("/approve once, always and deny go through the approval path", async () => {
    const approval = (subject: string) =>
      ask({
        kind: "approval",
        prompt: `Write ${subject}?`,
        options: [],
        approval: {
          tool: "write_file",
          input: { path: subject },
          preview: { type: "diff", path: subject, diff: "+hello" },
          subject,
          subjectKind: "path",
          alwaysPattern: "docs/**",
          dangerous: true,
          fallback: "deny",
        },
      });
    const a = await approval("docs/a.md");
    expect(await send("/approve once")).toMatchObject({ outcome: "answered", question: { id: a.id, answer: "once", closedBy: "text" }, reply: { text: "Allowed once: write_file: docs/a.md." } });
    const b = await approval("src/b.ts");
    expect(await send(`/approve ${b.pendingId} deny not here`)).toMatchObject({ outcome: "declined", question: { id: b.id, status: "declined", feedback: "not here", closedBy: "text" } });
    // "always" adds the session rule and settles the approvals it covers, as the card's button does.
    const c = await approval("docs/c.md");
    const d = await approval("docs/d.md");
    expect(await send(`/approve ${c.id.slice(0, 8)} always`)).toMatchObject({ outcome: "answered", question: { id: c.id, answer: "always", closedBy: "text" } });
    expect(await app.parley.questions.getQuestion({ id: d.id })).toMatchObject({ status: "answered", closedBy: "rule" });
  });

  it("a wrong id, an ambiguous prefix or an invalid choice changes nothing and lists what is pending", async () => {
    const one = await ask({});
    const two = await ask({ prompt: "Size?", options: ["Small", "Large"] });
    const common = [...one.id].findIndex((c, i) => c !== two.id[i]);
    for (const text of ["/answer 7", "/answer zzzzzz12 eu", `/answer ${one.id.slice(0, 8)} 3`, "/approve once", ...(common > 0 ? [`/answer ${one.id.slice(0, common)} 1`] : [])]) {
      const result = await send(text);
      expect(result.outcome, text).toBe("refused");
      expect(result.reply.text, text).toMatch(/Waiting for an answer:/);
    }
    expect((await app.parley.questions.listPending({ sessionId })).map((q) => q.id).sort()).toEqual([one.id, two.id].sort());
  });

  it("a question of another session is not found; other slash commands still start a chat turn", async () => {
    await ask({});
    const other = (await app.parley.sessions.createSession({ title: "other" })).id;
    const result = (await app.parley.postMessage({ sessionId: other, text: "/answer 1" })) as TextCommandResult;
    expect(result.outcome).toBe("refused");
    expect(result.reply.text).toMatch(/Nothing is waiting/);
    const turn = await app.parley.postMessage({ sessionId: other, text: "/deploy" });
    expect(turn).toMatchObject({ functionName: "chat", status: "running" });
  });
});
