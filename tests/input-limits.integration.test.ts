import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import type { Ack } from "../lib/protocol/socket";
import { startTestApp, waitFor, type TestApp } from "./helpers/test-app";
import { sendReject as reject, sendReply as reply } from "./helpers/remote";

/** Input past the typed errors, over real sockets: every case gets an error ack, never `internal`, and the question stays as it was. */

let app: TestApp;
beforeEach(async () => {
  app = await startTestApp();
});
afterEach(async () => {
  await app.close();
});

const codeOf = (ack: Ack<unknown>) => (ack.ok ? "ok" : ack.error.code);

function nested(depth: number): unknown {
  let value: unknown = "x";
  for (let i = 0; i < depth; i++) value = { v: value };
  return value;
}

async function pendingQuestion(): Promise<Question> {
  const session = await app.parley.sessions.createSession();
  await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Env?", options: ["production", "staging"] } });
  return waitFor(async () => (await app.parley.questions.listPending({ sessionId: session.id }))[0]);
}

describe("input that used to get past the typed errors", () => {
  it("a reply nested 2,200 deep is reply_too_deep, not internal", async () => {
    const q = await pendingQuestion();
    const tab = await app.client();
    const ack = await reply(tab, { id: q.id, value: nested(2_200) });
    expect(ack).toMatchObject({ ok: false, error: { code: "reply_too_deep" } });
    expect((await app.parley.questions.getQuestion({ id: q.id })).status).toBe("pending");
  });

  it("a reply body sent as a decline is refused, naming the unknown key, and the question stays pending", async () => {
    const q = await pendingQuestion();
    const tab = await app.client();
    const ack = await reject(tab, { id: q.id, value: "staging", digest: q.targetDigest });
    expect(ack).toMatchObject({ ok: false, error: { code: "bad_request", message: expect.stringContaining('"value"') } });
    expect((await app.parley.questions.getQuestion({ id: q.id })).status).toBe("pending");
    expect(codeOf(await reply(tab, { id: q.id, value: "staging", digets: q.targetDigest }))).toBe("bad_request");
    expect(codeOf(await tab.emitWithAck("session.join", { sessionId: q.sessionId, extra: 1 } as { sessionId: string }))).toBe("bad_request");
    expect(codeOf(await reply(tab, { id: q.id, value: "staging", digest: q.targetDigest }))).toBe("ok");
  });

  it("an error for a reply with 20,000 unknown keys stays short", async () => {
    const q = await pendingQuestion();
    const tab = await app.client();
    const extra = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]));
    const ack = await reply(tab, { id: q.id, value: "staging", ...extra });
    expect(codeOf(ack)).toBe("bad_request");
    expect(JSON.stringify(ack).length).toBeLessThan(1_200);
  });
});
