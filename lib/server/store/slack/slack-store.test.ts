import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStoreTestDb, type StoreTestDb } from "../../../../tests/helpers/fixture-db";
import { createEmailStore } from "../email/email-store";
import { createSlackStore } from "./slack-store";

let t: StoreTestDb;
beforeEach(async () => {
  t = await openStoreTestDb("parley_slackstore");
});
afterEach(() => t.close());

describe("the people a surface reaches", () => {
  it("Slack: the linked users of a list of people (any number, in one statement); a user is one person's", async () => {
    const store = createSlackStore(t.db.exec);
    expect(await store.link("ann", "U0ANN00001")).toBe(true);
    expect(await store.link("bob", "U0BOB00001")).toBe(true);
    expect(await store.link("cat", "U0ANN00001")).toBe(false);
    expect(await store.slackUsersOf(["ann", "bob", "cat"])).toEqual(
      new Map([
        ["ann", "U0ANN00001"],
        ["bob", "U0BOB00001"],
      ]),
    );
    expect(await store.slackUsersOf([])).toEqual(new Map());
    expect(await store.personOf("U0BOB00001")).toBe("bob");
    // A new user for ann replaces her old one, which is free again.
    expect(await store.link("ann", "U0ANN00002")).toBe(true);
    expect(await store.link("cat", "U0ANN00001")).toBe(true);
  });

  it("email: the addresses of those who want questions by mail", async () => {
    const store = createEmailStore(t.db.exec);
    expect(await store.setEmail("ann", "ann@example.com", true)).toBe(true);
    expect(await store.setEmail("bob", "bob@example.com", false)).toBe(true);
    expect(await store.setEmail("cat", "ann@example.com", true)).toBe(false);
    expect(await store.emailsOf(["ann", "bob", "cat"])).toEqual(new Map([["ann", "ann@example.com"]]));
  });

  it("a deleted chat's questions take their Slack messages and mails with them: nothing is left due whose question is gone", async () => {
    const { fixture } = t;
    await fixture.chatSession.create({ data: { id: "s", title: "t" } });
    await fixture.run.create({ data: { id: "r", sessionId: "s", functionName: "ask", input: "{}", status: "waiting_input" } });
    await fixture.question.create({ data: { id: "q", sessionId: "s", runId: "r", kind: "question", prompt: "?", owner: "ask", pendingId: "p", targetDigest: "d", status: "pending" } });
    const slack = createSlackStore(t.db.exec);
    const email = createEmailStore(t.db.exec);
    let n = 0;
    const newId = () => `m${++n}`;
    await slack.setChannel("s", "C0PARLEY01");
    expect(await slack.enqueue("q", ["C0PARLEY01"], newId)).toBe(1);
    expect(await email.enqueue("q", new Map([["ann", "ann@example.com"]]), newId)).toBe(1);
    expect((await slack.due(10)).length + (await email.due(10)).length).toBe(2);
    await fixture.chatSession.delete({ where: { id: "s" } });
    expect(await slack.due(10)).toEqual([]);
    expect(await email.due(10)).toEqual([]);
    expect(await slack.channelOf("s")).toBeNull();
  });

  it("a message the question changed under while it was being sent stays due, to be sent again as it is now", async () => {
    const { fixture } = t;
    await fixture.chatSession.create({ data: { id: "s", title: "t" } });
    await fixture.run.create({ data: { id: "r", sessionId: "s", functionName: "ask", input: "{}", status: "waiting_input" } });
    await fixture.question.create({ data: { id: "q", sessionId: "s", runId: "r", kind: "question", prompt: "?", owner: "ask", pendingId: "p", targetDigest: "d", status: "pending" } });
    const slack = createSlackStore(t.db.exec);
    await slack.enqueue("q", ["C0PARLEY01"], () => "m1");
    const [posting] = await slack.due(10);
    expect(await slack.claim(posting!, 60_000)).toBe(true);
    // A vote (or the end) comes while the post is on its way.
    expect(await slack.touch("q")).toBe(1);
    await slack.synced(posting!, posting!.attempts + 1, { ts: "1.1", channel: "C0PARLEY01" });
    const [again] = await slack.due(10);
    expect(again).toMatchObject({ id: "m1", ts: "1.1", postedIn: "C0PARLEY01", version: 2 });
    // Sent as it is now: in step.
    expect(await slack.claim(again!, 60_000)).toBe(true);
    await slack.synced(again!, again!.attempts + 1, { ts: "1.1", channel: "C0PARLEY01" });
    expect(await slack.due(10)).toEqual([]);
  });

  it("a mail sent while its question settled says it was sent, not cancelled", async () => {
    const { fixture } = t;
    await fixture.chatSession.create({ data: { id: "s", title: "t" } });
    await fixture.run.create({ data: { id: "r", sessionId: "s", functionName: "ask", input: "{}", status: "waiting_input" } });
    await fixture.question.create({ data: { id: "q", sessionId: "s", runId: "r", kind: "question", prompt: "?", owner: "ask", pendingId: "p", targetDigest: "d", status: "pending" } });
    const email = createEmailStore(t.db.exec);
    await email.enqueue("q", new Map([["ann", "ann@example.com"]]), () => "m1");
    const [mail] = await email.due(10);
    expect(await email.claim(mail!, 60_000)).toBe(true);
    expect(await email.cancelUnsent("q")).toBe(1);
    await email.sent(mail!.id, mail!.attempts + 1);
    expect((await fixture.emailMessage.findUnique({ where: { id: "m1" } }))?.status).toBe("sent");
  });
});
