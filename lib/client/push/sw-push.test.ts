import { describe, expect, it } from "vitest";
import { pushButtonsFor, type PushPayload } from "../../protocol/push";
import { fakeSw } from "./fake-sw-env";
import { handlePush, pushJson, TAP_TO_ANSWER } from "./sw-push";

const confirm: PushPayload = {
  type: "question",
  questionId: "q1",
  sessionId: "s1",
  title: "deploy asks",
  body: "Ship it?\n— Release",
  tag: "q1",
  url: "/s/s1#q1",
  digest: "d1",
  buttons: pushButtonsFor({ kind: "confirm", options: [], multi: false, replySchema: null, approval: null }),
};
const threeChoices: PushPayload = {
  ...confirm,
  questionId: "q2",
  tag: "q2",
  buttons: pushButtonsFor({ kind: "question", options: ["red", "green", "blue"], multi: false, replySchema: null, approval: null }),
};

describe("a push", () => {
  it("shows a question with its answer buttons when they all fit, and keeps it until it is answered", async () => {
    const sw = fakeSw({ maxActions: 2 });
    await handlePush(sw.env, confirm);
    expect(sw.shown).toHaveLength(1);
    const { title, options } = sw.shown[0]!;
    expect(title).toBe("deploy asks");
    expect(options).toMatchObject({ body: "Ship it?\n— Release", tag: "q1", requireInteraction: true, renotify: false });
    expect(options.actions).toEqual([
      { action: "yes", title: "Yes" },
      { action: "no", title: "No" },
    ]);
    expect(options.data).toEqual({ questionId: "q1", sessionId: "s1", url: "/s/s1#q1", digest: "d1", buttons: confirm.buttons });
  });

  it("shows no buttons at all when the platform shows fewer than the question offers, and says to tap", async () => {
    const sw = fakeSw({ maxActions: 2 });
    await handlePush(sw.env, threeChoices);
    const { options } = sw.shown[0]!;
    expect(options.actions).toBeUndefined();
    expect(options.body).toBe(`Ship it?\n— Release\n${TAP_TO_ANSWER}`);
    expect((options.data as { buttons: unknown[] }).buttons).toEqual([]);

    const wide = fakeSw({ maxActions: 3 });
    await handlePush(wide.env, threeChoices);
    expect(wide.shown[0]!.options.actions?.map((a) => a.title)).toEqual(["red", "green", "blue"]);
  });

  it("a question with no buttons (free text) says to tap", async () => {
    const sw = fakeSw();
    await handlePush(sw.env, { ...confirm, buttons: [] });
    expect(sw.shown[0]!.options.actions).toBeUndefined();
    expect(sw.shown[0]!.options.body).toMatch(/Tap to answer\.$/);
  });

  it("closes the notification a retraction names, and only that one", async () => {
    const sw = fakeSw();
    await handlePush(sw.env, confirm);
    await handlePush(sw.env, threeChoices);
    await handlePush(sw.env, { type: "closed", questionId: "q1", tag: "q1" });
    expect(sw.shown.map((s) => [s.options.tag, s.closed])).toEqual([
      ["q1", true],
      ["q2", false],
    ]);
  });

  it("a question's push that arrives after its retraction (push services don't keep order) never shows", async () => {
    const sw = fakeSw();
    await handlePush(sw.env, { type: "closed", questionId: "q1", tag: "q1" });
    await handlePush(sw.env, confirm);
    await handlePush(sw.env, threeChoices);
    expect(sw.shown.map((s) => s.options.tag)).toEqual(["q2"]);
  });

  it("ignores a push that is not Parley's payload", async () => {
    const sw = fakeSw();
    await handlePush(sw.env, { type: "question", questionId: "q1" });
    await handlePush(sw.env, pushJson({ json: () => JSON.parse("{not json") }));
    await handlePush(sw.env, pushJson(null));
    expect(sw.shown).toEqual([]);
  });
});
