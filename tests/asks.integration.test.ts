import { describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import type { Run, Session } from "../lib/protocol/entities";
import { jsonOrText, poll } from "./helpers/remote";
import { authHeaders } from "./helpers/server-process";
import { suiteServer } from "./helpers/suite-server";

/** The ask API against the production server: a script asks, a person answers elsewhere, the script hears it. */

const suite = suiteServer("asks");

async function ask(body: unknown, key?: string): Promise<{ status: number; body: Question & { error?: { code: string; message: string } } }> {
  const res = await fetch(`${suite.server.url}/api/asks`, {
    method: "POST",
    headers: { ...authHeaders(), "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await jsonOrText(res)) as Question & { error?: { code: string; message: string } } };
}

describe("POST /api/asks and GET /api/questions/{id}?wait=", { timeout: 60_000 }, () => {
  it("asks in the session named after who asks; the same key never asks twice; a held read returns the answer given elsewhere; the run ends with it", async () => {
    const asked = await ask({ question: "Deploy to production?", options: ["yes", "no"], from: "deploy-script" }, "deploy-42");
    expect(asked.status).toBe(201);
    expect(asked.body).toMatchObject({ status: "pending", prompt: "Deploy to production?", options: ["yes", "no"], owner: "deploy-script" });
    const sessions = await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"));
    expect(sessions.find((s) => s.id === asked.body.sessionId)?.title).toBe("deploy-script");

    const again = await ask({ question: "Deploy to production?", options: ["yes", "no"], from: "deploy-script" }, "deploy-42");
    expect(again).toMatchObject({ status: 201, body: { id: asked.body.id } });
    // The key names that ask: another question under it is refused, not asked.
    expect((await ask({ question: "Deploy to staging?", from: "deploy-script" }, "deploy-42")).status).toBe(409);

    // Nothing answers within a second: the held read ends with the question still pending.
    const started = Date.now();
    expect(await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${asked.body.id}?wait=1`))).toMatchObject({ status: "pending" });
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);

    const held = suite.rest.ok(suite.rest.get<Question>(`/api/questions/${asked.body.id}?wait=30`));
    await new Promise((resolve) => setTimeout(resolve, 100));
    await suite.rest.ok(suite.rest.post(`/api/questions/${asked.body.id}/reply`, { value: "yes" }));
    expect(await held).toMatchObject({ id: asked.body.id, status: "answered", answer: "yes" });
    const run = await poll("the ask's run ends", async () => {
      const r = await suite.rest.ok(suite.rest.get<Run>(`/api/runs/${asked.body.runId}`));
      return r.status === "succeeded" ? r : undefined;
    });
    expect(run.result).toEqual({ outcome: "answered", value: "yes" });

    // The next ask from the same script goes to the same session; declined, the held read says so.
    const second = await ask({ question: "Roll back?", from: "deploy-script" });
    expect(second.body.sessionId).toBe(asked.body.sessionId);
    await suite.rest.ok(suite.rest.post(`/api/questions/${second.body.id}/reject`, { message: "not now" }));
    expect(await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${second.body.id}?wait=5`))).toMatchObject({ status: "declined", feedback: "not now" });

    // Stopping an ask's run withdraws its question everywhere.
    const third = await ask({ question: "Tag the release?", from: "deploy-script" });
    await suite.rest.ok(suite.rest.post(`/api/runs/${third.body.runId}/stop`, {}));
    expect(await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${third.body.id}?wait=5`))).toMatchObject({ status: "cancelled" });
  });

  it("at once: twins of one key put one question; the first asks of a new name make one session", async () => {
    const twins = await Promise.all(Array.from({ length: 6 }, () => ask({ question: "Twin?", from: "twins" }, "twin-1")));
    expect(twins.map((t) => t.status)).toEqual(Array(6).fill(201));
    expect(new Set(twins.map((t) => t.body.id)).size).toBe(1);
    const firsts = await Promise.all(["One?", "Two?", "Three?"].map((question) => ask({ question, from: "fresh-client" })));
    expect(new Set(firsts.map((t) => t.body.sessionId)).size).toBe(1);
    expect((await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"))).filter((s) => s.title === "fresh-client")).toHaveLength(1);
  });

  it("GET /api/questions/{id}/events streams the question, then its settlement, then ends", async () => {
    const asked = await ask({ question: "Stream it?", options: ["a", "b"], from: "streamer" });
    const res = await fetch(`${suite.server.url}/api/questions/${asked.body.id}/events`, { headers: authHeaders() });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let text = "";
    const until = async (part: string) => {
      while (!text.includes(part)) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before ${part}: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    };
    await until("event: question\n");
    expect(text).toContain(`"id":"${asked.body.id}"`);
    await suite.rest.ok(suite.rest.post(`/api/questions/${asked.body.id}/reply`, { value: "b" }));
    await until("event: settled\n");
    const settled = JSON.parse(/event: settled\ndata: (.*)\n/.exec(text)![1]!) as Question;
    expect(settled).toMatchObject({ id: asked.body.id, status: "answered", answer: "b" });
    expect((await reader.read()).done).toBe(true);
    expect((await fetch(`${suite.server.url}/api/questions/nope/events`, { headers: authHeaders() })).status).toBe(404);
  });

  it("a form asks for its fields; the answer is its content", async () => {
    const form = { type: "object", properties: { name: { type: "string" }, count: { type: "integer" } }, required: ["name"] };
    const asked = await ask({ question: "Who and how many?", form, from: "survey", session: "forms" });
    expect(asked.status).toBe(201);
    expect(asked.body.replySchema).toEqual(form);
    await suite.rest.ok(suite.rest.post(`/api/questions/${asked.body.id}/reply`, { value: { name: "Ann", count: 2 } }));
    expect(await suite.rest.ok(suite.rest.get<Question>(`/api/questions/${asked.body.id}?wait=5`))).toMatchObject({ status: "answered", answer: { name: "Ann", count: 2 } });
  });

  it("refuses what cannot be asked with 400, naming the field, and stores nothing", async () => {
    for (const [body, field] of [
      [{ question: "Pick", multiple: true, from: "x" }, "multi"],
      [{ question: "Form", form: { type: "object", properties: {} }, options: ["a"], from: "x" }, "form"],
      [{ question: "Who?", from: "a\nb" }, "from"],
      [{ question: "Who?", from: "x", extra: 1 }, "extra"],
    ] as const) {
      const res = await ask(body);
      expect(res.status).toBe(400);
      expect(res.body.error?.message).toContain(field);
    }
    const waiting = await ask({ question: "How long?", from: "waiter" });
    expect((await suite.rest.get(`/api/questions/${waiting.body.id}?wait=61`)).status).toBe(400);
    expect((await suite.rest.get(`/api/questions/none?wait=61`)).status).toBe(404);
    // Refused before anything was stored: not even the asker's session was made.
    expect((await suite.rest.ok(suite.rest.get<Session[]>("/api/sessions"))).some((s) => s.title === "x")).toBe(false);
  });
});
