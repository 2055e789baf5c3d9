import { afterEach, describe, expect, it } from "vitest";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

/*
 * Distinct operations stay distinct (issue 24): a chat turn, an answer to a question and an
 * approval are different commands with different receipts; a chat message never answers a
 * question, even one whose text is exactly an option (only the text channel's documented rules do).
 */

let app: TestApp | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
});

describe("a chat turn, an answer and an approval are different commands", () => {
  it("a chat message that is exactly an option of the waiting question answers nothing: it is refused with session_busy", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Which region?", options: ["eu", "us"] } });
    const [q] = await waitFor(async () => {
      const list = await a.parley.questions.listPending({ sessionId: session.id });
      return list.length === 1 && list;
    });
    await expect(a.parley.postMessage({ sessionId: session.id, text: "eu" })).rejects.toMatchObject({ code: "session_busy" });
    const still = await a.parley.questions.getQuestion({ id: q!.id });
    expect([still.status, still.answer]).toEqual(["pending", null]);
  });

  it("a commandId used for an answer cannot be used again for an approval, or for another question: each command has its own receipt", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Which region?", options: ["eu", "us"] } });
    await a.parley.runs.startRun({ sessionId: session.id, functionName: "test.tool", input: { tool: "write_file", input: { path: "docs/a.md", content: "a\n" } } });
    const pending = await waitFor(async () => {
      const list = await a.parley.questions.listPending({ sessionId: session.id });
      return list.length === 2 && list;
    });
    const question = pending.find((q) => q.kind !== "approval")!;
    const approval = pending.find((q) => q.kind === "approval")!;
    const answered = await a.parley.questions.reply({ id: question.id, value: "eu", commandId: "one-command", by: "rest" });
    // The same command again is the same receipt; the same id for the approval is refused and changes nothing.
    expect(await a.parley.questions.reply({ id: question.id, value: "eu", commandId: "one-command", by: "rest" })).toEqual(answered);
    await expect(a.parley.questions.reply({ id: approval.id, value: "once", commandId: "one-command", by: "rest" })).rejects.toMatchObject({ code: "command_conflict" });
    expect((await a.parley.questions.getQuestion({ id: approval.id })).status).toBe("pending");
    // An approval's answer is not a choice's, nor the other way round.
    await expect(a.parley.questions.reply({ id: approval.id, value: "eu", by: "rest" })).rejects.toMatchObject({ code: "invalid_answer" });
    const allowed = await a.parley.questions.reply({ id: approval.id, value: "once", commandId: "another-command", by: "rest" });
    expect(allowed).not.toEqual(answered);
    expect((await a.parley.questions.getQuestion({ id: approval.id })).answer).toBe("once");
  });
});
