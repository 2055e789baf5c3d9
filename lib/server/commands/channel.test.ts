import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeParley, until, type FakeParley, type FakeWorker } from "../../../tests/helpers/fakes";
import { outcomeLine } from "../../protocol/audit";
import { QuestionSpecSchema } from "../../protocol/question";

let app: FakeParley;
let sessionId: string;
beforeEach(async () => {
  app = await startFakeParley();
  sessionId = (await app.parley.sessions.createSession({ title: "channel" })).id;
});
afterEach(async () => {
  await app.close();
});

/** The worker told to start the run of this session's latest chat turn, and that run's id. */
const chatWorker = () =>
  until(async () => {
    const runs = await app.parley.runs.listRuns({ sessionId });
    const run = runs.find((r) => r.functionName === "chat" && r.status !== "succeeded");
    if (!run) return undefined;
    const worker = app.pool.created.find((w) => w.sentOf("run.start").some((m) => m.runId === run.id));
    return worker ? { worker, runId: run.id } : undefined;
  });

function ask(worker: FakeWorker, runId: string, seq: number, prompt: string) {
  const questionId = randomUUID();
  worker.say({ type: "run.say", runId, seq, digest: `s${seq}`, text: `About ${prompt}` });
  worker.say({ type: "question.ask", runId, seq: seq + 1, digest: `d${seq}`, questionId, spec: QuestionSpecSchema.parse({ kind: "question", prompt, options: ["us", "eu"], timeoutMs: null }) });
  return questionId;
}

describe("the plain-text channel (Parley.channelText / channelOutbox)", () => {
  it("a channel-started run is asked, answered by the plain next message, then by a text command; the audit says from a text channel and who", async () => {
    // A plain message starts a turn; the reply comes at once with what the agent said and the question.
    const firstReply = app.parley.channelText({ sessionId, from: "ann", text: "Deploy it" });
    const { worker, runId } = await chatWorker();
    const q1 = ask(worker, runId, 0, "Which region?");
    const first = await firstReply;
    expect(first).toMatchObject({ from: "ann", outcome: "started", runId, questionId: q1 });
    // In the transcript the message is Ann's over the channel, not the app user's own; a tab's message names no one.
    const [message] = (await app.parley.sessions.getSnapshot({ id: sessionId })).messages.filter((m) => m.role === "user");
    expect(message).toMatchObject({ text: "Deploy it", sender: "ann via text channel" });
    expect(first.reply).toBe(`About Which region?\n\nwaiting for your answer (question ${q1.slice(0, 8)}): Which region?\n1. us\n2. eu\nReply with a number or a label, or /decline [feedback].`);

    // The person's next message answers it (non-blocking mode), closed by "channel", the sender kept.
    const second = await app.parley.channelText({ sessionId, from: "ann", text: "2" });
    expect(second).toMatchObject({ outcome: "answered", questionId: q1 });
    expect(second.reply).toBe("Answered 'Which region?' with eu. (ann, from a text channel)");
    const answered = await app.parley.questions.getQuestion({ id: q1 });
    expect(answered).toMatchObject({ status: "answered", answer: "eu", closedBy: "channel" });
    expect(outcomeLine(answered)).toBe('Answered "eu", from a text channel');
    await until(() => worker.sentOf("question.settled").some((m) => m.questionId === q1));
    expect(worker.sentOf("question.settled")).toMatchObject([{ questionId: q1, outcome: "answered", value: "eu" }]);

    // The run asks again; a text command from the channel answers it.
    const q2 = ask(worker, runId, 2, "Which size?");
    await until(async () => (await app.parley.questions.listPending({ sessionId })).length === 1);
    const third = await app.parley.channelText({ sessionId, from: "bob", text: "/answer us" });
    expect(third).toMatchObject({ outcome: "answered", questionId: q2 });
    expect(third.reply).toBe("Answered 'Which size?' with us. (bob, from a text channel)");
    expect(await app.parley.questions.getQuestion({ id: q2 })).toMatchObject({ closedBy: "channel", answer: "us" });

    // The run finishes; a late answer is told so; the outbox relays agent and system messages after a cursor.
    worker.say({ type: "run.finished", runId, status: "succeeded", result: null });
    await until(async () => (await app.parley.runs.getRun({ id: runId })).status === "succeeded");
    expect((await app.parley.channelText({ sessionId, from: "ann", text: `/answer ${q2.slice(0, 8)} eu` })).reply).toBe("Already answered from a text channel. (ann, from a text channel)");
    const all = await app.parley.channelOutbox({ sessionId });
    expect(all.messages.map((m) => m.role)).toEqual(["agent", "system", "agent", "system", "system"]);
    expect(all.messages.some((m) => m.text === "Deploy it")).toBe(false);
    const after = await app.parley.channelOutbox({ sessionId, after: first.cursor! });
    expect(after.messages.map((m) => m.text)).toEqual(all.messages.slice(1).map((m) => m.text));
    expect(await app.parley.channelOutbox({ sessionId, after: all.cursor! })).toEqual({ messages: [], cursor: all.cursor });
    await expect(app.parley.channelOutbox({ sessionId, after: "nope" })).rejects.toMatchObject({ code: "bad_request" });
  });

  it("never answers with an error: while a question waits, an unknown command or an invalid choice is told what waits, its id, its choices and how to answer; a working turn says so", async () => {
    const firstReply = app.parley.channelText({ sessionId, from: "ann", text: "Deploy it" });
    const { worker, runId } = await chatWorker();
    const q = ask(worker, runId, 0, "Which region?");
    await firstReply;
    const waits = [`waiting for your answer (question ${q.slice(0, 8)}): Which region?`, "1. us", "2. eu", "Reply with a number or a label, or /decline [feedback]."].join("\n");

    const unknown = await app.parley.channelText({ sessionId, from: "ann", text: "/pending" });
    expect(unknown).toMatchObject({ outcome: "refused", questionId: q, runId, cursor: null });
    expect(unknown.reply).toBe(
      `/pending is not a command here. The commands are /answer, /decline, /approve; plain text answers the question that waits, or starts a chat turn when none does.\n\n${waits}`,
    );

    const invalid = await app.parley.channelText({ sessionId, from: "ann", text: "mars" });
    expect(invalid).toMatchObject({ outcome: "refused", questionId: null });
    for (const part of ['"mars" is not one of the options', "Which region?", q.slice(0, 8), "1. us", "2. eu", "Reply:"]) expect(invalid.reply).toContain(part);
    expect((await app.parley.questions.getQuestion({ id: q })).status).toBe("pending");

    // Answered, the turn works on: a new message is told so, with nothing waiting.
    expect((await app.parley.channelText({ sessionId, from: "ann", text: "1" })).outcome).toBe("answered");
    const busy = await app.parley.channelText({ sessionId, from: "ann", text: "and then?" });
    expect(busy).toMatchObject({ outcome: "refused", questionId: null, runId: null });
    expect(busy.reply).toBe("This session is still working on its last message. Wait for it, or stop it, before starting a new turn.\n\nNothing is waiting for an answer.");
    expect((await app.parley.runs.listRuns({ sessionId })).filter((r) => r.functionName === "chat")).toHaveLength(1);
  });

  it("a chat turn that asks nothing within the wait answers with what was said; with nothing pending a command gets help", async () => {
    const reply = await app.parley.channelText({ sessionId, from: "ann", text: "hello", waitMs: 50 });
    expect(reply).toMatchObject({ outcome: "started", questionId: null });
    expect(reply.reply).toMatch(/outbox/);
    const help = await app.parley.channelText({ sessionId, from: "ann", text: "/answer 1" });
    expect(help.outcome).toBe("refused");
    expect(help.reply).toContain("Nothing is waiting for an answer");
  });
});
