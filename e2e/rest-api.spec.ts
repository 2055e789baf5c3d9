import { expect, test } from "@playwright/test";
import { TEST_TOKEN } from "../tests/helpers/server-process";
import { Api, ChatPage } from "./chat-page";

test.describe("REST API against the running server", () => {
  test("lists functions, sessions and health", async ({ request }) => {
    const functions = await (await request.get("/api/functions")).json();
    expect(functions).toEqual(expect.arrayContaining([expect.objectContaining({ name: "deploy", description: expect.any(String) })]));
    const session = await new Api(request).createSession();
    const sessions = await (await request.get("/api/sessions")).json();
    expect(sessions.map((s: { id: string }) => s.id)).toContain(session.id);
    expect(await (await request.get("/api/health")).json()).toMatchObject({ ok: true });
  });

  test("a chat message starts a run whose question, reply and result are all reachable over REST", async ({ request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const posted = await request.post(`/api/sessions/${session.id}/messages`, { data: { text: "/rename" } });
    expect(posted.status()).toBe(201);
    const run = await posted.json();
    expect(run).toMatchObject({ sessionId: session.id, functionName: "chat", status: "running" });

    const [question] = await api.waitForPending(session.id);
    expect(question).toMatchObject({ kind: "question", prompt: "What should the project be called?", options: [], runId: run.id });
    const snapshot = await (await request.get(`/api/sessions/${session.id}`)).json();
    expect(snapshot.pendingQuestions.map((q: { id: string }) => q.id)).toEqual([question!.id]);

    const receipt = await (await api.reply(question!.id, "Parley")).json();
    expect(receipt).toMatchObject({ outcome: "answered", question: { status: "answered", answer: "Parley" } });
    await expect.poll(async () => (await api.run(run.id)).status).toBe("succeeded");
    expect((await api.run(run.id)).result).toEqual({ renamed: true, name: "Parley" });
  });

  test("bad input gets a clear error and changes nothing", async ({ request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    await api.startRun(session.id, "deploy");
    const [question] = await api.waitForPending(session.id);
    const reply = (data: string | object) =>
      request.post(`/api/questions/${question!.id}/reply`, {
        // A Buffer is sent as it is; a string would be JSON-encoded by Playwright.
        data: Buffer.from(typeof data === "string" ? data : JSON.stringify(data)),
        headers: { "content-type": "application/json" },
      });

    const cases: Array<[string | object, number, string]> = [
      ["{not json", 400, "invalid_json"],
      [{ answer: "staging" }, 400, "bad_request"],
      [{ value: "moon" }, 422, "invalid_answer"],
      [{ value: "" }, 422, "invalid_answer"],
      [{ value: ["staging", "production"] }, 422, "invalid_answer"],
      [{ value: "x".repeat(100_000) }, 413, "reply_too_large"],
      [{ value: "x".repeat(3_000_000) }, 413, "payload_too_large"],
      [{ value: "staging", digest: "not-the-digest" }, 200, ""],
    ];
    for (const [body, status, code] of cases) {
      const res = await reply(body);
      expect(res.status(), JSON.stringify(body).slice(0, 40)).toBe(status);
      const json = await res.json();
      if (code) expect(json.error).toMatchObject({ code, message: expect.any(String) });
      else expect(json).toMatchObject({ apply_state: "target_closed", outcome: "stale_target" });
    }
    expect((await request.post("/api/questions/nope/reply", { data: { value: "a" } })).status()).toBe(404);
    expect((await request.get("/api/sessions/nope")).status()).toBe(404);
    expect((await request.get("/api/questions")).status()).toBe(400);
    expect((await request.post(`/api/sessions/${session.id}/runs`, { data: { function: "nope" } })).status()).toBe(404);
    expect((await request.post(`/api/sessions/${session.id}/messages`, { data: { text: "   " } })).status()).toBe(400);

    // Nothing changed: the question still waits, and the right answer still wins.
    expect((await api.pending(session.id)).map((q) => q.status)).toEqual(["pending"]);
    expect(await (await reply({ value: "staging" })).json()).toMatchObject({ outcome: "answered" });
  });

  test("a decline over REST ends the question with its feedback", async ({ request }) => {
    const api = new Api(request);
    const session = await api.createSession();
    const run = await api.startRun(session.id, "order-coffee");
    const [question] = await api.waitForPending(session.id);
    const res = await request.post(`/api/questions/${question!.id}/reject`, { data: { message: "trying to sleep" } });
    expect(await res.json()).toMatchObject({ outcome: "declined", question: { status: "declined", feedback: "trying to sleep" } });
    await expect.poll(async () => (await api.run(run.id)).status).toBe("succeeded");
    const stop = await (await request.post(`/api/runs/${run.id}/stop`)).json();
    expect(stop.status).toBe("succeeded");
  });
});

test.describe("a run started from outside the chat", () => {
  test("shows in every tab with a line saying who started it and how", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const res = await request.post(`/api/sessions/${session.id}/runs`, { data: { function: "deploy" }, headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(res.status()).toBe(201);
    const run = await res.json();
    expect(run.startedBy).toEqual({ surface: "rest", via: "server_token" });
    await expect(tab.page.getByTestId("run-started-by")).toHaveText("Deploy was started by Administrator through the REST API with the server token");
    await tab.expectCard("Which environment should I deploy to?");
    // A chat turn has no such line: the person's message introduces it.
    const other = await ChatPage.open(context, (await new Api(request).createSession()).id);
    await other.send("/coffee");
    await other.expectCard("What would you like to drink?");
    await expect(other.page.getByTestId("run-started-by")).toHaveCount(0);
  });

  test("a client that says it is the CLI is shown as saying so, not as the CLI", async ({ context, request }) => {
    const session = await new Api(request).createSession();
    const tab = await ChatPage.open(context, session.id);
    const res = await request.post(`/api/sessions/${session.id}/runs`, { data: { function: "deploy" }, headers: { authorization: `Bearer ${TEST_TOKEN}`, "x-parley-surface": "cli" } });
    expect(res.status()).toBe(201);
    expect((await res.json()).startedBy).toEqual({ surface: "rest", via: "server_token", clientSays: "cli" });
    await expect(tab.page.getByTestId("run-started-by")).toHaveText("Deploy was started by Administrator through the REST API (the CLI, as it says) with the server token");
  });
});
