import { describe, expect, it } from "vitest";
import { pushButtonsFor, type PushPayload } from "../../protocol/push";
import { fakeSw, sentJson, ORIGIN, type FakeSw } from "./fake-sw-env";
import { RETRY_DELAYS_MS } from "./sw-answer";
import { handleNotificationClick } from "./sw-click";
import { handlePush } from "./sw-push";

const approval: PushPayload = {
  type: "question",
  questionId: "q/1",
  sessionId: "s1",
  title: "deploy wants to run Bash",
  body: "rm -rf build",
  tag: "q/1",
  url: "/s/s1",
  digest: "digest-1",
  buttons: pushButtonsFor({ kind: "approval", options: [], multi: false, replySchema: null, approval: { tool: "Bash" } as never }),
};

async function shownApproval(): Promise<FakeSw> {
  const sw = fakeSw();
  await handlePush(sw.env, approval);
  return sw;
}

const tap = (sw: FakeSw, action: string) => {
  const shown = sw.shown.at(-1)!;
  return handleNotificationClick(sw.env, {
    action,
    notification: { tag: shown.options.tag, data: shown.options.data, body: shown.options.body, close: () => void (shown.closed = true) },
  });
};

const receipt = (outcome: string) => new Response(JSON.stringify({ commandId: "x", outcome }), { status: 200, headers: { "content-type": "application/json" } });

describe("a tap on a notification", () => {
  it("a button sends the reply with a commandId, the digest and the push surface header, and the notification closes", async () => {
    const sw = await shownApproval();
    sw.respond = () => receipt("answered");
    await tap(sw, "allow");
    expect(sw.fetched).toHaveLength(1);
    const { url, init } = sw.fetched[0]!;
    expect(url).toBe(`${ORIGIN}/api/questions/q%2F1/reply`);
    expect(init).toMatchObject({ method: "POST", credentials: "same-origin", headers: { "content-type": "application/json", "x-parley-surface": "push" } });
    expect(sentJson({ init })).toEqual({ value: "once", commandId: "cmd-1", digest: "digest-1" });
    expect(sw.shown.map((s) => s.closed)).toEqual([true]);
    expect(sw.opened).toEqual([]);
  });

  it("Reject sends a reject (no value)", async () => {
    const sw = await shownApproval();
    sw.respond = () => receipt("declined");
    await tap(sw, "reject");
    expect(sw.fetched[0]!.url).toBe(`${ORIGIN}/api/questions/q%2F1/reject`);
    expect(sentJson(sw.fetched[0]!)).toEqual({ commandId: "cmd-1", digest: "digest-1" });
    expect(sw.shown.every((s) => s.closed)).toBe(true);
  });

  it("retries a network failure twice with the same commandId, so a retry is the same answer", async () => {
    const sw = await shownApproval();
    let calls = 0;
    sw.respond = () => {
      if (++calls < 3) throw new TypeError("Failed to fetch");
      return receipt("answered");
    };
    await tap(sw, "allow");
    expect(sw.fetched).toHaveLength(3);
    expect(new Set(sw.fetched.map((f) => (sentJson(f) as { commandId: string }).commandId))).toEqual(new Set(["cmd-1"]));
    expect(sw.slept).toEqual([...RETRY_DELAYS_MS]);
    expect(sw.shown.every((s) => s.closed)).toBe(true);
  });

  it("after the retries, says the answer was not sent, and that notice opens the question", async () => {
    const sw = await shownApproval();
    sw.respond = () => {
      throw new TypeError("Failed to fetch");
    };
    await tap(sw, "allow");
    expect(sw.fetched).toHaveLength(3);
    const notice = sw.shown.at(-1)!;
    expect(notice).toMatchObject({ title: "Couldn't send your answer", closed: false, options: { body: "Couldn't send your answer. Tap to open the question.", tag: "q/1" } });
    expect(notice.options.actions).toBeUndefined();
    await tap(sw, "");
    expect(sw.opened).toEqual([`${ORIGIN}/s/s1`]);
  });

  it.each([
    ["already_answered", "Already answered on another device"],
    ["already_closed", "This question has closed"],
    ["stale_target", "This question changed — open it to answer"],
  ])("%s: the notification says %j instead of answering twice", async (outcome, title) => {
    const sw = await shownApproval();
    sw.respond = () => receipt(outcome);
    await tap(sw, "allow");
    expect(sw.shown.filter((s) => !s.closed).map((s) => [s.title, s.options.tag])).toEqual([[title, "q/1"]]);
    expect(sw.fetched).toHaveLength(1);
  });

  it("a 401 asks to sign in, and its tap opens the app", async () => {
    const sw = await shownApproval();
    sw.respond = () => new Response(JSON.stringify({ error: { code: "unauthorized", message: "Sign in first" } }), { status: 401 });
    await tap(sw, "allow");
    expect(sw.shown.at(-1)!.title).toBe("Sign in to answer");
    expect(sw.fetched).toHaveLength(1);
  });

  it("a refusal says the server's reason", async () => {
    const sw = await shownApproval();
    sw.respond = () => new Response(JSON.stringify({ error: { code: "not_found:question", message: "No such question." } }), { status: 404 });
    await tap(sw, "allow");
    expect(sw.shown.at(-1)!.options.body).toBe("No such question. Tap to open the question.");
  });

  it("a tap on the notification itself focuses a window already on the session, or opens one", async () => {
    const sw = await shownApproval();
    await tap(sw, "");
    expect(sw.opened).toEqual([`${ORIGIN}/s/s1`]);
    expect(sw.fetched).toEqual([]);
    expect(sw.shown[0]!.closed).toBe(true);

    const open = fakeSw({ windows: [`${ORIGIN}/s/other`, `${ORIGIN}/s/s1`] });
    await handlePush(open.env, approval);
    await tap(open, "");
    expect(open.windows.map((w) => w.focused)).toEqual([0, 1]);
    expect(open.opened).toEqual([]);
  });

  it("a tap on a question's notification takes a window already on its chat to that question's card", async () => {
    const link = `${ORIGIN}/s/s1#question-q2`;
    const open = fakeSw({ windows: [`${ORIGIN}/s/s1#question-q1`] });
    await handlePush(open.env, { ...approval, url: "/s/s1#question-q2" });
    await tap(open, "");
    expect(open.windows.map((w) => [w.url, w.focused])).toEqual([[link, 1]]);
    expect(open.opened).toEqual([]);
  });

  it("an unknown action opens the card rather than guessing an answer", async () => {
    const sw = await shownApproval();
    await tap(sw, "maybe");
    expect(sw.fetched).toEqual([]);
    expect(sw.opened).toEqual([`${ORIGIN}/s/s1`]);
  });
});
