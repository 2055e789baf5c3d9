import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { SLACK_ACTIONS, SLACK_VIEWS, choiceValue } from "../lib/protocol/slack";
import { ANSWER_BLOCK, FEEDBACK_BLOCK, INPUT_BLOCK, fieldBlockId } from "../lib/server/slack/slack-views";
import { addPeople, type Person } from "./helpers/people";
import { joinSession, openTab, poll, restClient, sendReply, type RestClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { clickPayload, sendInteraction, startSlackStandIn, type SlackStandIn } from "./helpers/slack-stand-in";

/**
 * Slack as an answer surface, over the production server and a local stand-in of Slack's Web API
 * (tests/helpers/slack-stand-in.ts): questions become messages, clicks and modals signed as Slack
 * signs them answer through the same claim as every other surface, and every message is updated
 * to what happened.
 */

const SECRET = "8f742231b10e8888abcd99aaabbb85a5";
const CHANNEL = "C0PARLEY01";
const USERS = { local: "U0ADMIN001", ann: "U0ANN00001", bob: "U0BOB00001", cat: "U0CAT00001", stranger: "U0NOBODY01" } as const;

let dir: string;
let slack: SlackStandIn;
let server: ServerProcess;
let rest: RestClient;
let people: Person[];
let sessionId: string;
const tabs: Tab[] = [];

const ask = (body: Record<string, unknown>) => rest.ok(rest.post<Question>("/api/asks", { from: "release", session: "team", ...body }));
const question = (id: string) => rest.ok(rest.get<Question>(`/api/questions/${id}`));
const settled = (id: string) => poll(`${id} settled`, async () => ((await question(id)).status !== "pending" ? question(id) : undefined));
const interact = (payload: unknown, options?: Parameters<typeof sendInteraction>[3]) => sendInteraction(server.url, SECRET, payload, options);

/** The blocks of the question's latest post or update in Slack. */
function blocksOf(questionId: string, method: "chat.postMessage" | "chat.update") {
  const calls = slack.of(method).filter((c) => JSON.stringify(c.args.blocks ?? "").includes(questionId));
  return calls.at(-1)?.args.blocks as Array<Record<string, any>> | undefined;
}
const posted = (questionId: string) => poll(`${questionId} posted`, () => blocksOf(questionId, "chat.postMessage"));
/** The question's message once updated to show `words` (its outcome line). */
const updatedTo = (questionId: string, words: RegExp) => poll(`${questionId} updated to ${words}`, () => (JSON.stringify(blocksOf(questionId, "chat.update") ?? "").match(words) ? true : undefined));
const ephemeralTo = (user: string, words: RegExp) =>
  poll(`an ephemeral to ${user}: ${words}`, () => slack.of("chat.postEphemeral").find((c) => c.args.user === user && words.test(String(c.args.text))));
const buttonsOf = (blocks: Array<Record<string, any>>) => blocks.flatMap((b) => (b.type === "actions" ? b.elements : [])) as Array<Record<string, any>>;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-slack-"));
  // Cat is in the workspace with the address she has in Parley, and not linked.
  slack = await startSlackStandIn({ users: { [USERS.cat]: "cat@example.com", [USERS.stranger]: "stranger@example.com" } });
  const databaseFile = path.join(dir, "p.db");
  server = await startServerProcess({
    port: await freePort(),
    databaseFile,
    env: {
      PARLEY_SLACK_BOT_TOKEN: "xoxb-test-0123456789",
      PARLEY_SLACK_SIGNING_SECRET: SECRET,
      PARLEY_SLACK_API_URL: slack.url,
      PARLEY_SLACK_CHANNEL: CHANNEL,
      PARLEY_SLACK_RETRY_MS: "100",
      PARLEY_PUBLIC_URL: "https://parley.example",
    },
  });
  rest = restClient(server.url);
  people = await addPeople(`file:${databaseFile}`, ["ann", "bob", "cat"]);
  await rest.ok(rest.put("/api/users/cat/email", { email: "Cat@Example.com" }));
  for (const name of ["local", "ann"] as const) await rest.ok(rest.put(`/api/users/${name}/slack`, { slackUserId: USERS[name] }));
  await rest.ok(rest.put(`/api/users/bob/slack`, { slackUserId: USERS.bob }));
  sessionId = (await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "team" }))).id;
  for (const user of ["ann", "bob", "cat"]) await rest.ok(rest.post(`/api/sessions/${sessionId}/members`, { user }));
}, 90_000);

afterAll(async () => {
  for (const tab of tabs) tab.disconnect();
  await server?.kill();
  await slack?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("Slack", { timeout: 60_000 }, () => {
  it("posts a waiting question to the channel with the bot token, naming who asks, in which chat, with a link to its card", async () => {
    const q = await ask({ question: "Ship 4.2?", options: ["yes", "no"] });
    const blocks = await posted(q.id);
    const post = slack.of("chat.postMessage").find((c) => JSON.stringify(c.args.blocks).includes(q.id))!;
    expect(post.token).toBe("xoxb-test-0123456789");
    expect(post.args.channel).toBe(CHANNEL);
    expect(post.args.text).toBe("release asks: Ship 4.2?");
    expect(JSON.stringify(blocks)).toContain(`<https://parley.example/s/${sessionId}#question-${q.id}|team>`);
    expect(buttonsOf(blocks).map((b) => b.text.text)).toEqual(["yes", "no"]);
  });

  it("a choice clicked in Slack answers it as the linked person, and the message then says who chose what, in Slack", async () => {
    const q = await ask({ question: "Colour?", options: ["red", "blue"] });
    await posted(q.id);
    const res = await interact(clickPayload(USERS.ann, { action_id: `${SLACK_ACTIONS.choose}_1`, value: choiceValue(q.id, 1) }));
    expect(res.status).toBe(200);
    expect(await settled(q.id)).toMatchObject({ status: "answered", answer: "blue", closedBy: "slack", closedByUser: "ann" });
    await updatedTo(q.id, /Answered \\"blue\\" by ann, in Slack/);
    // The updated message has no controls left.
    expect(buttonsOf(blocksOf(q.id, "chat.update")!)).toEqual([]);
    // The run's audit names the message and that Slack shows the end.
    const run = await rest.ok(rest.get<{ slack: unknown[] }>(`/api/runs/${q.runId}`));
    await poll("the message in step", async () => ((await rest.ok(rest.get<{ slack: Array<{ status: string }> }>(`/api/runs/${q.runId}`))).slack[0]?.status === "done" ? true : undefined));
    expect(run.slack).toEqual([expect.objectContaining({ questionId: q.id, channel: CHANNEL, lastError: null })]);
  });

  it("answered in a tab first: the Slack message is updated to say so, and a late click is told who answered", async () => {
    const q = await ask({ question: "Deploy now?", options: ["now", "later"] });
    await posted(q.id);
    const tab = await openTab(server.url, { token: people.find((p) => p.name === "bob")!.token });
    tabs.push(tab);
    expect((await joinSession(tab, sessionId)).ok).toBe(true);
    expect((await sendReply(tab, { id: q.id, value: "later" })).ok).toBe(true);
    await updatedTo(q.id, /Answered \\"later\\" by bob, in a browser tab/);
    await interact(clickPayload(USERS.ann, { action_id: `${SLACK_ACTIONS.choose}_0`, value: choiceValue(q.id, 0) }));
    await ephemeralTo(USERS.ann, /Already settled: Answered "later" by bob, in a browser tab/);
    expect((await question(q.id)).answer).toBe("later");
  });

  it("two people click at once: one answer wins, the other is told", async () => {
    const q = await ask({ question: "Who takes it?", options: ["ann", "bob"] });
    await posted(q.id);
    const [a, b] = await Promise.all([
      interact(clickPayload(USERS.ann, { action_id: `${SLACK_ACTIONS.choose}_0`, value: choiceValue(q.id, 0) })),
      interact(clickPayload(USERS.bob, { action_id: `${SLACK_ACTIONS.choose}_1`, value: choiceValue(q.id, 1) })),
    ]);
    expect([a.status, b.status]).toEqual([200, 200]);
    const done = await settled(q.id);
    const loser = done.closedByUser === "ann" ? USERS.bob : USERS.ann;
    await ephemeralTo(loser, /Already settled/);
    expect(done.answer).toBe(done.closedByUser);
  });

  it("a request with a bad or old signature is refused with 401 and changes nothing", async () => {
    const q = await ask({ question: "Signed?", options: ["yes", "no"] });
    await posted(q.id);
    const click = clickPayload(USERS.ann, { action_id: `${SLACK_ACTIONS.choose}_0`, value: choiceValue(q.id, 0) });
    expect((await interact(click, { signature: "v0=" + "0".repeat(64) })).status).toBe(401);
    expect((await interact(click, { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    const unsigned = await fetch(`${server.url}/api/slack/interactions`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "payload=%7B%7D" });
    expect(unsigned.status).toBe(401);
    expect((await question(q.id)).status).toBe("pending");
  });

  it("an unlinked Slack user and a person who may not answer are told why, and nothing changes", async () => {
    const q = await ask({ question: "Only for bob?", options: ["yes", "no"], answerers: ["bob"] });
    await posted(q.id);
    await interact(clickPayload(USERS.stranger, { action_id: `${SLACK_ACTIONS.choose}_0`, value: choiceValue(q.id, 0) }));
    await ephemeralTo(USERS.stranger, /not linked to a person in Parley/);
    await interact(clickPayload(USERS.ann, { action_id: `${SLACK_ACTIONS.choose}_0`, value: choiceValue(q.id, 0) }));
    await ephemeralTo(USERS.ann, /Only bob may answer this question now/);
    expect((await question(q.id)).status).toBe("pending");
    await interact(clickPayload(USERS.bob, { action_id: `${SLACK_ACTIONS.choose}_1`, value: choiceValue(q.id, 1) }));
    expect(await settled(q.id)).toMatchObject({ answer: "no", closedByUser: "bob" });
  });

  it("a Slack user not linked but whose Slack email is a person's answers as that person, and is linked from then on", async () => {
    const q = await ask({ question: "Cat's call?", options: ["yes", "no"] });
    await posted(q.id);
    await interact(clickPayload(USERS.cat, { action_id: `${SLACK_ACTIONS.choose}_0`, value: choiceValue(q.id, 0) }));
    expect(await settled(q.id)).toMatchObject({ answer: "yes", closedByUser: "cat", closedBy: "slack" });
    expect(slack.of("users.info").some((c) => c.args.user === USERS.cat)).toBe(true);
    // Linked now: her next click needs no look-up.
    const next = await ask({ question: "Again?", options: ["yes", "no"] });
    await posted(next.id);
    const lookups = slack.of("users.info").length;
    await interact(clickPayload(USERS.cat, { action_id: `${SLACK_ACTIONS.choose}_1`, value: choiceValue(next.id, 1) }));
    expect(await settled(next.id)).toMatchObject({ answer: "no", closedByUser: "cat" });
    expect(slack.of("users.info")).toHaveLength(lookups);
  });

  it("many options become a select; several choices are ticked, then sent", async () => {
    const options = ["a", "b", "c", "d", "e", "f"];
    const one = await ask({ question: "Pick a letter", options });
    const select = buttonsOf(await posted(one.id))[0]!;
    expect(select.type).toBe("static_select");
    await interact(clickPayload(USERS.ann, { action_id: SLACK_ACTIONS.chooseSelect, selected_option: { value: choiceValue(one.id, 4) } }));
    expect(await settled(one.id)).toMatchObject({ answer: "e" });

    const many = await ask({ question: "Pick some", options: ["x", "y", "z"], multiple: true });
    const [boxes, send] = buttonsOf(await posted(many.id));
    expect(boxes!.type).toBe("checkboxes");
    const state = {
      values: { [`parley_${many.id}`]: { [SLACK_ACTIONS.multiPick]: { type: "checkboxes", selected_options: [{ value: choiceValue(many.id, 0) }, { value: choiceValue(many.id, 2) }] } } },
    };
    await interact(clickPayload(USERS.ann, { action_id: SLACK_ACTIONS.multiSend, value: send!.value }, { state }));
    expect(await settled(many.id)).toMatchObject({ answer: ["x", "z"], closedBy: "slack" });
  });

  it("a confirm is Yes or No", async () => {
    const run = await rest.ok(rest.post<{ id: string }>(`/api/sessions/${sessionId}/runs`, { function: "test.ask", input: { prompt: "Archive 5 emails?", confirm: true } }));
    const q = await poll("the confirm", async () => (await rest.ok(rest.get<Question[]>(`/api/questions?session_id=${sessionId}`))).find((x) => x.runId === run.id));
    expect(buttonsOf(await posted(q.id)).map((b) => b.text.text)).toEqual(["Yes", "No"]);
    await interact(clickPayload(USERS.bob, { action_id: SLACK_ACTIONS.no, value: q.id }));
    expect(await settled(q.id)).toMatchObject({ answer: false, closedByUser: "bob" });
  });

  it("free text and forms open a modal: its fields are checked as the server checks them, errors shown beside them", async () => {
    const text = await ask({ question: "Release notes?" });
    await posted(text.id);
    await interact(clickPayload(USERS.ann, { action_id: SLACK_ACTIONS.answer, value: text.id }));
    const opened = await poll("the modal", () => slack.of("views.open").find((c) => (c.args.view as any).private_metadata === text.id));
    expect((opened.args.view as any).callback_id).toBe(SLACK_VIEWS.answer);
    const submit = (questionId: string, values: Record<string, unknown>, user: string = USERS.ann) =>
      interact({ type: "view_submission", user: { id: user }, view: { callback_id: SLACK_VIEWS.answer, private_metadata: questionId, state: { values } } });
    expect((await submit(text.id, { [ANSWER_BLOCK]: { value: { type: "plain_text_input", value: "  " } } })).body).toEqual({
      response_action: "errors",
      errors: { [ANSWER_BLOCK]: "Write an answer." },
    });
    expect((await submit(text.id, { [ANSWER_BLOCK]: { value: { type: "plain_text_input", value: "Faster cards." } } })).body).toBeNull();
    expect(await settled(text.id)).toMatchObject({ answer: "Faster cards.", closedBy: "slack" });

    const form = await ask({
      question: "Trip",
      form: { type: "object", properties: { city: { type: "string", minLength: 2 }, nights: { type: "integer", minimum: 1, maximum: 14 } }, required: ["city"] },
    });
    await posted(form.id);
    const field = (name: string, value: string) => ({ [fieldBlockId(name)]: { value: { type: name === "nights" ? "number_input" : "plain_text_input", value } } });
    const refused = await submit(form.id, { ...field("city", "L"), ...field("nights", "40") });
    expect(refused.body).toMatchObject({ response_action: "errors", errors: { [fieldBlockId("city")]: expect.any(String), [fieldBlockId("nights")]: expect.any(String) } });
    expect((await question(form.id)).status).toBe("pending");
    expect((await submit(form.id, { ...field("city", "Lisbon"), ...field("nights", "4") })).body).toBeNull();
    expect(await settled(form.id)).toMatchObject({ answer: { city: "Lisbon", nights: 4 } });
  });

  it("an approval: Allow once, or Reject… with the feedback typed in its modal", async () => {
    const once = await ask({ kind: "approval", tool_name: "deploy", input: { env: "prod" } });
    // No input schema: the call can only be allowed as it is.
    expect(buttonsOf(await posted(once.id)).map((b) => b.text.text)).toEqual(["Allow once", "Allow always", "Reject…"]);
    await interact(clickPayload(USERS.ann, { action_id: SLACK_ACTIONS.allowOnce, value: once.id }));
    expect(await settled(once.id)).toMatchObject({ status: "answered", answer: "once" });
    await updatedTo(once.id, /Allowed once by ann, in Slack/);

    const rejected = await ask({ kind: "approval", tool_name: "deploy", input: { env: "staging" } });
    await posted(rejected.id);
    await interact(clickPayload(USERS.bob, { action_id: SLACK_ACTIONS.reject, value: rejected.id }));
    await poll("the reject modal", () => slack.of("views.open").find((c) => (c.args.view as any).private_metadata === rejected.id));
    const res = await interact({
      type: "view_submission",
      user: { id: USERS.bob },
      view: { callback_id: SLACK_VIEWS.reject, private_metadata: rejected.id, state: { values: { [FEEDBACK_BLOCK]: { value: { type: "plain_text_input", value: "Not on a Friday." } } } } },
    });
    expect(res.body).toBeNull();
    expect(await settled(rejected.id)).toMatchObject({ status: "declined", feedback: "Not on a Friday.", closedByUser: "bob" });
  });

  it("an approval's Edit… opens its input as JSON: a bad edit is shown in the modal, a good one allows the edited call once", async () => {
    const q = await ask({ kind: "approval", tool_name: "deploy", input: { env: "prod" }, input_schema: { type: "object", properties: { env: { type: "string" } }, required: ["env"] } });
    expect(buttonsOf(await posted(q.id)).map((b) => b.text.text)).toEqual(["Allow once", "Allow always", "Edit…", "Reject…"]);
    await interact(clickPayload(USERS.ann, { action_id: SLACK_ACTIONS.edit, value: q.id }));
    const opened = await poll("the edit modal", () => slack.of("views.open").find((c) => (c.args.view as any).private_metadata === q.id));
    expect(JSON.stringify(opened.args.view)).toContain(JSON.stringify(JSON.stringify({ env: "prod" }, null, 2)).slice(1, -1));
    const submit = (value: string) =>
      interact({
        type: "view_submission",
        user: { id: USERS.ann },
        view: { callback_id: SLACK_VIEWS.edit, private_metadata: q.id, state: { values: { [INPUT_BLOCK]: { value: { type: "plain_text_input", value } } } } },
      });
    expect((await submit("{ env: ")).body).toMatchObject({ response_action: "errors", errors: { [INPUT_BLOCK]: expect.stringMatching(/^Not valid JSON/) } });
    expect((await submit('{ "env": 5 }')).body).toMatchObject({ response_action: "errors", errors: { [INPUT_BLOCK]: expect.any(String) } });
    expect((await question(q.id)).status).toBe("pending");
    expect((await submit('{ "env": "staging" }')).body).toBeNull();
    expect(await settled(q.id)).toMatchObject({ status: "answered", answer: "once", editedInput: { env: "staging" }, closedBy: "slack" });
  });

  it("an approval that needs two people: a vote from Slack shows on the message, the web's second vote settles it", async () => {
    const q = await ask({ kind: "approval", tool_name: "deploy", input: { env: "prod", v: 2 }, approvals: { required: 2, from: ["ann", "bob"] } });
    await posted(q.id);
    await interact(clickPayload(USERS.ann, { action_id: SLACK_ACTIONS.allowOnce, value: q.id }));
    await updatedTo(q.id, /1 of 2 approved/);
    expect((await question(q.id)).status).toBe("pending");
    const bob = restClient(server.url, { token: people.find((p) => p.name === "bob")!.token });
    await bob.ok(bob.post(`/api/questions/${q.id}/reply`, { value: "once" }));
    expect(await settled(q.id)).toMatchObject({ status: "answered" });
    await updatedTo(q.id, /Allowed once/);
  });

  it("a Slack API that answers 429 is tried again after its Retry-After, and the message goes out", async () => {
    slack.rateLimit("chat.postMessage", 1);
    const q = await ask({ question: "Busy Slack?", options: ["yes", "no"] });
    const triesOf = () => slack.of("chat.postMessage").filter((c) => JSON.stringify(c.args.blocks).includes(q.id));
    await poll("posted again after the 429", () => (triesOf().length === 2 ? true : undefined), 20_000);
    const [limited, sent] = triesOf();
    // Not before Slack's Retry-After (1 s), though the outbox's own backoff here is 100 ms.
    expect(sent!.at - limited!.at).toBeGreaterThanOrEqual(950);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(triesOf()).toHaveLength(2);
  });
});
