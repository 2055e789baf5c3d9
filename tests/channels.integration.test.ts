import path from "node:path";
import { describe, expect, it } from "vitest";
import { MAX_CHANNEL_TEXT_CHARS } from "../lib/protocol/channels";
import type { Session } from "../lib/protocol/entities";
import { addPeople } from "./helpers/people";
import { poll, restClient } from "./helpers/remote";
import { suiteServer } from "./helpers/suite-server";

/** The plain-text channel over HTTP against the production server: a whole exchange, its limits and who may use it. */

const suite = suiteServer("channel");

interface ChannelReply {
  reply: string;
  outcome: string;
  questionId: string | null;
  runId: string | null;
  cursor: string | null;
}

describe("POST /api/channels/text", { timeout: 60_000 }, () => {
  it("starts a turn, delivers its question as numbered text, takes the next message as the answer, and relays what the agent said", async () => {
    const session = await suite.rest.ok(suite.rest.post<Session>("/api/sessions", {}));
    const started = await suite.rest.ok(suite.rest.post<ChannelReply>("/api/channels/text", { sessionId: session.id, from: "Ann (SMS)", text: "/coffee" }));
    expect(started.reply).toContain(`waiting for your answer (question ${started.questionId!.slice(0, 8)}): What would you like to drink?`);
    expect(started.reply).toMatch(/1\. Espresso\n2\. Flat white/);

    // While it waits, no message gets an error: an unknown command and a function's own command are answered with what waits.
    for (const text of ["/pending", "/coffee"]) {
      const res = await suite.rest.post<ChannelReply>("/api/channels/text", { sessionId: session.id, from: "Ann (SMS)", text });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ outcome: "refused", questionId: started.questionId });
      expect(res.body.reply).toContain(`(question ${started.questionId!.slice(0, 8)}): What would you like to drink?\n1. Espresso`);
    }
    const unknown = await suite.rest.ok(suite.rest.post<ChannelReply>("/api/channels/text", { sessionId: session.id, from: "Ann (SMS)", text: "/pending" }));
    expect(unknown.reply).toMatch(/^\/pending is not a command here\. The commands are \/answer, \/decline, \/approve, .*\/coffee/);

    const answered = await suite.rest.ok(suite.rest.post<ChannelReply>("/api/channels/text", { sessionId: session.id, from: "Ann (SMS)", text: "2" }));
    expect(answered).toMatchObject({ outcome: "answered", questionId: started.questionId });

    const outbox = await poll("the agent's answer in the outbox", async () => {
      const box = await suite.rest.ok(
        suite.rest.get<{ messages: Array<{ text: string }>; cursor: string | null }>(`/api/channels/text/outbox?sessionId=${session.id}${started.cursor ? `&after=${started.cursor}` : ""}`),
      );
      return box.messages.some((m) => m.text.includes("One Flat white coming up")) ? box : undefined;
    });
    expect(outbox.cursor).not.toBeNull();

    // The audit says it came from a text channel; the stored reply keeps who sent it.
    const question = await suite.rest.ok(suite.rest.get(`/api/questions/${started.questionId}`));
    expect(question).toMatchObject({ status: "answered", answer: "Flat white", closedBy: "channel" });
  });

  it("refuses an over-long text with 413 and changes nothing", async () => {
    const session = await suite.rest.ok(suite.rest.post<Session>("/api/sessions", {}));
    const res = await suite.rest.post("/api/channels/text", { sessionId: session.id, from: "Ann", text: "x".repeat(MAX_CHANNEL_TEXT_CHARS + 1) });
    expect(res.status).toBe(413);
    expect(res.body).toMatchObject({ error: { code: "payload_too_large" } });
    expect((await suite.rest.ok(suite.rest.get<{ messages: unknown[] }>(`/api/channels/text/outbox?sessionId=${session.id}`))).messages).toEqual([]);
    expect(await suite.rest.ok(suite.rest.get(`/api/sessions/${session.id}/runs`))).toEqual([]);
  });

  it("treats another owner's session as one that does not exist", async () => {
    const session = await suite.rest.ok(suite.rest.post<Session>("/api/sessions", {}));
    const bob = restClient(suite.server.url, { token: (await addPeople(`file:${path.join(suite.dir, "p.db")}`, ["bob"]))[0]!.token });
    const res = await bob.post("/api/channels/text", { sessionId: session.id, from: "Bob", text: "hello" });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: { code: "not_found:session" } });
    expect((await bob.get(`/api/channels/text/outbox?sessionId=${session.id}`)).status).toBe(404);
  });
});
