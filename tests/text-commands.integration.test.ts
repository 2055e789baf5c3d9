import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { outcomeLine } from "../lib/protocol/audit";
import type { TextCommandResult } from "../lib/server/commands/text-commands";
import { nextEvent, startTestApp, waitFor, type TestApp } from "./helpers/test-app";
import { joinSession as join, sendReply as reply } from "./helpers/remote";

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});

describe("text commands over real sockets", () => {
  it("a card button and a typed /answer race: exactly one wins, the other is told already answered", async () => {
    for (let round = 0; round < 4; round++) {
      const session = await app.parley.sessions.createSession();
      const tab = await app.client();
      expect((await join(tab, session.id)).ok).toBe(true);
      const asked = nextEvent(tab, "question.asked");
      const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Which region?", options: ["us", "eu"] } });
      const q = await asked;

      const [button, typed] = await Promise.all([
        reply(tab, { id: q.id, value: "us", digest: q.targetDigest }),
        app.parley.postMessage({ sessionId: session.id, text: `/answer ${q.id.slice(0, 8)} 2` }) as Promise<TextCommandResult>,
      ]);
      const buttonOutcome = button.ok ? button.data.outcome : button.error.code;
      expect([buttonOutcome, typed.outcome].sort()).toEqual(["already_answered", "answered"]);
      const final = await app.parley.questions.getQuestion({ id: q.id });
      if (typed.outcome === "answered") {
        expect(final).toMatchObject({ answer: "eu", closedBy: "text" });
        expect(typed.reply.text).toBe("Answered 'Which region?' with eu.");
        expect(outcomeLine(final)).toBe('Answered "eu", with a text command');
      } else {
        expect(final).toMatchObject({ answer: "us", closedBy: "socket" });
        expect(typed.reply.text).toBe("Already answered in another tab.");
      }
      const done = await waitFor(async () => {
        const r = await app.parley.runs.getRun({ id: run.id });
        return r.status === "succeeded" && r;
      });
      expect(done.result).toEqual({ outcome: "answered", value: final.answer });
    }
  });

  it("a typed /decline answers while the session is busy with the question; the tab sees the retraction and both messages", async () => {
    const session = await app.parley.sessions.createSession();
    const tab = await app.client();
    await join(tab, session.id);
    const asked = nextEvent(tab, "question.asked");
    await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Proceed?", options: ["go", "wait"] } });
    const q = await asked;
    const replied = nextEvent(tab, "question.rejected");
    const seen: string[] = [];
    tab.on("message.created", (m) => seen.push(`${m.role}: ${m.text}`));
    const result = (await app.parley.postMessage({ sessionId: session.id, text: "/decline" })) as TextCommandResult;
    expect(result).toMatchObject({ command: "decline", outcome: "declined", reply: { role: "system", text: "Declined 'Proceed?'." } });
    expect(await replied).toMatchObject({ id: q.id, status: "declined", closedBy: "text" });
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(["user: /decline", "system: Declined 'Proceed?'."]);
  });
});
