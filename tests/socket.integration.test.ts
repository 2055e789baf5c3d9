import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { SessionSnapshot } from "../lib/protocol/entities";
import type { ReplyReceipt } from "../lib/protocol/commands";
import { nextEvent, startTestApp, waitFor, type TestApp } from "./helpers/test-app";
import { joinSession as join, sendReply as reply } from "./helpers/remote";

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});

describe("three tabs of one session over real sockets", () => {
  it("all see the question, the first answer wins, the others retract, a late reply is told already_answered", async () => {
    const session = await app.parley.sessions.createSession();
    const tabs = await Promise.all([app.client(), app.client(), app.client()]);
    for (const tab of tabs) expect((await join(tab, session.id)).ok).toBe(true);

    const asked = tabs.map((t) => nextEvent(t, "question.asked"));
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Env?", options: ["production", "staging"] } });
    const questions = await Promise.all(asked);
    const id = questions[0]!.id;
    expect(questions.map((q) => q.id)).toEqual([id, id, id]);
    expect(questions[0]).toMatchObject({ sessionId: session.id, runId: run.id, kind: "question", prompt: "Env?", multi: false, allowCustom: false, status: "pending" });

    const retractions = tabs.map((t) => nextEvent(t, "question.replied"));
    const [first, second] = await Promise.all([reply(tabs[0], { id, value: "staging" }), reply(tabs[1], { id, value: "production" })]);
    const receipts = [first, second].map((a) => (a.ok ? a.data.outcome : a.error.code)).sort();
    expect(receipts).toEqual(["already_answered", "answered"]);

    const retracted = await Promise.all(retractions);
    const winner = [first, second].find((a) => a.ok && a.data.outcome === "answered") as { ok: true; data: ReplyReceipt };
    for (const q of retracted) expect(q).toMatchObject({ id, status: "answered", answer: winner.data.question.answer });

    const late = await reply(tabs[2], { id, value: "production" });
    expect(late).toMatchObject({ ok: true, data: { outcome: "already_answered", question: { status: "answered" } } });

    const done = await waitFor(async () => {
      const r = await app.parley.runs.getRun({ id: run.id });
      return r.status === "succeeded" && r;
    });
    expect(done.result).toEqual({ outcome: "answered", value: winner.data.question.answer });
  });

  it("joining replays every pending question with its stored expiry", async () => {
    const session = await app.parley.sessions.createSession();
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "two-questions" });
    await waitFor(async () => (await app.parley.questions.listPending({ sessionId: session.id })).length === 2);
    const tab = await app.client();
    const ack = await join(tab, session.id);
    expect(ack.ok).toBe(true);
    const snapshot = (ack as { ok: true; data: SessionSnapshot }).data;
    expect(snapshot.pendingQuestions.map((q) => q.prompt)).toEqual(["Which color?", "Which size?"]);
    expect(snapshot.pendingQuestions.every((q) => q.expiresAt !== null)).toBe(true);
    expect(snapshot.runs.map((r) => [r.id, r.status])).toEqual([[run.id, "waiting_input"]]);
  });

  it("bad commands get an error ack and change nothing", async () => {
    const session = await app.parley.sessions.createSession();
    const tab = await app.client();
    await join(tab, session.id);
    const asked = nextEvent(tab, "question.asked");
    await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { options: ["a", "b"] } });
    const { id } = await asked;

    expect(await reply(tab, { id })).toMatchObject({ ok: false, error: { code: "bad_request" } });
    expect(await reply(tab, "garbage")).toMatchObject({ ok: false, error: { code: "bad_request" } });
    expect(await reply(tab, { id: "nope", value: "a" })).toMatchObject({ ok: false, error: { code: "not_found:question" } });
    expect(await reply(tab, { id, value: "c" })).toMatchObject({ ok: false, error: { code: "invalid_answer" } });
    expect(await reply(tab, { id, value: ["a", "b"] })).toMatchObject({ ok: false, error: { code: "invalid_answer" } });
    expect(await join(tab, "nope")).toMatchObject({ ok: false, error: { code: "not_found:session" } });
    expect((await app.parley.questions.getQuestion({ id })).status).toBe("pending");

    expect(await reply(tab, { id, value: "a" })).toMatchObject({ ok: true, data: { outcome: "answered" } });
  });

  it("another tab sees a chat message before the run that answers it", async () => {
    const session = await app.parley.sessions.createSession();
    const tab = await app.client();
    await join(tab, session.id);
    const seen: string[] = [];
    tab.on("message.created", (m) => seen.push(`message:${m.role}`));
    tab.on("run.updated", (r) => seen.push(`run:${r.status}`));
    await app.parley.postMessage({ sessionId: session.id, text: "hello" });
    await waitFor(() => seen.includes("message:user") && seen.some((e) => e.startsWith("run:")));
    expect(seen.indexOf("message:user")).toBeLessThan(seen.findIndex((e) => e.startsWith("run:")));
  });

  it("a stop retracts the card in every tab", async () => {
    const session = await app.parley.sessions.createSession();
    const tabs = await Promise.all([app.client(), app.client()]);
    for (const tab of tabs) await join(tab, session.id);
    const asked = nextEvent(tabs[0], "question.asked");
    const run = await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: {} });
    const { id } = await asked;
    const closed = tabs.map((t) => nextEvent(t, "question.rejected"));
    await app.parley.runs.stopRun({ id: run.id });
    for (const q of await Promise.all(closed)) expect(q).toMatchObject({ id, status: "cancelled" });
  });

  it("a timeout retracts the card in every tab with question.rejected, its status saying timed_out", async () => {
    const session = await app.parley.sessions.createSession();
    const tabs = await Promise.all([app.client(), app.client()]);
    for (const tab of tabs) await join(tab, session.id);
    const asked = nextEvent(tabs[0], "question.asked");
    await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { timeoutMs: 300 } });
    const { id } = await asked;
    const retracted = tabs.map((t) => nextEvent(t, "question.rejected"));
    for (const q of await Promise.all(retracted)) expect(q).toMatchObject({ id, status: "timed_out" });
  });

  it("disconnects a socket signed in with an API token once the token is revoked", async () => {
    const { token, info } = await app.parley.access.apiTokens.create({ ownerId: "local", name: "terminal" });
    const client = await app.client({ token });
    const kept = await app.client();
    const gone = new Promise<string>((resolve) => client.once("disconnect", (reason) => resolve(reason)));
    await app.parley.access.apiTokens.revoke(info.id);
    expect(await gone).toBe("io server disconnect");
    expect(kept.connected).toBe(true);
    await expect(app.client({ token })).rejects.toThrow(/unauthorized/);
  });

  it("refuses a handshake from another origin and accepts the app's own", async () => {
    await expect(app.client({ origin: "https://evil.example" })).rejects.toThrow();
    const own = await app.client({ origin: app.url });
    expect(own.connected).toBe(true);
  });
});
