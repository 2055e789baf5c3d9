import { afterEach, describe, expect, it, vi } from "vitest";
import type { Run } from "../lib/protocol/entities";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";

/** The default chat (the agent loop on the scripted model) in a real worker process. */
describe("the chat agent in a real worker", () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it("a turn with history: greets, then asks clarify on a card whose answer the model reads", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    const first = (await a.parley.postMessage({ sessionId: session.id, text: "hello" })) as Run;
    await waitFor(async () => (await a.parley.runs.getRun({ id: first.id })).status === "succeeded");

    const run = (await a.parley.postMessage({ sessionId: session.id, text: "order a coffee" })) as Run;
    expect((run as unknown as { input: { history: unknown[] } }).input?.history ?? null).toEqual(expect.arrayContaining([{ role: "user", text: "hello" }, expect.objectContaining({ role: "agent" })]));
    const [q] = await waitFor(async () => {
      const list = await a.parley.questions.listPending({ sessionId: session.id });
      return list.length === 1 && list;
    });
    expect(q).toMatchObject({ kind: "question", prompt: "What size should the coffee be?", options: ["Small", "Medium", "Large"] });
    await a.parley.questions.reply({ id: q!.id, value: "Large", by: "rest" });
    await waitFor(async () => (await a.parley.runs.getRun({ id: run.id })).status === "succeeded");
    const snapshot = await a.parley.sessions.getSnapshot({ id: session.id });
    const agentTexts = snapshot.messages.filter((m) => m.role === "agent").map((m) => m.text);
    expect(agentTexts[0]).toMatch(/offline demo agent/);
    expect(agentTexts.at(-1)).toMatch(/Ordering a large coffee/);
  });

  it("a chat message starts its turn with the owner its session's read gave, without reading it again", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    const ownerOf = vi.spyOn(a.parley.sessions, "ownerOf");
    const run = (await a.parley.postMessage({ sessionId: session.id, text: "hello" })) as Run;
    expect(run).toMatchObject({ sessionId: session.id, ownerId: session.ownerId });
    expect(ownerOf).not.toHaveBeenCalled();
    await waitFor(async () => (await a.parley.runs.getRun({ id: run.id })).status === "succeeded");
  });

  it("Retry after a provider error runs the failed turn again without a second user message, once", async () => {
    app = await startTestApp();
    const a = app;
    const session = await a.parley.sessions.createSession();
    const failed = (await a.parley.postMessage({ sessionId: session.id, text: "Please simulate a provider error" })) as Run;
    await waitFor(async () => (await a.parley.runs.getRun({ id: failed.id })).status === "failed");

    const retried = await a.parley.retryTurn({ runId: failed.id });
    await waitFor(async () => (await a.parley.runs.getRun({ id: retried.id })).status === "succeeded");
    const snapshot = await a.parley.sessions.getSnapshot({ id: session.id });
    expect(snapshot.messages.filter((m) => m.role === "user").map((m) => m.text)).toEqual(["Please simulate a provider error"]);
    expect(
      snapshot.messages
        .filter((m) => m.role === "agent" && m.runId === retried.id)
        .map((m) => m.text)
        .join(""),
    ).toMatch(/retry went through/);

    // Once: a second Retry of the same turn (another tab's) starts nothing; nor does a Retry of a turn that worked.
    await expect(a.parley.retryTurn({ runId: failed.id })).rejects.toMatchObject({ code: "not_retryable" });
    await expect(a.parley.retryTurn({ runId: retried.id })).rejects.toMatchObject({ code: "not_retryable" });
    expect((await a.parley.runs.listRuns({ sessionId: session.id })).length).toBe(2);
  });
});
