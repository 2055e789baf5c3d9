import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { addPeople } from "./helpers/people";
import { poll, restClient, type RestClient } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { startSmtpStandIn, type SmtpStandIn } from "./helpers/smtp-stand-in";

/**
 * Email as an answer surface, over the production server and a local SMTP server
 * (tests/helpers/smtp-stand-in.ts): a question is mailed to each person who may answer it; its
 * link opens a page that answers nothing until its form is sent, from the server's own origin.
 */

let dir: string;
let smtp: SmtpStandIn;
let server: ServerProcess;
let rest: RestClient;
let databaseFile: string;
let sessionId: string;

const ask = (body: Record<string, unknown>) => rest.ok(rest.post<Question>("/api/asks", { from: "release", session: "team", ...body }));
const question = (id: string) => rest.ok(rest.get<Question>(`/api/questions/${id}`));
const mailsOf = (questionId: string) => smtp.received.filter((r) => r.mail.headers.get("x-parley-question") === questionId);
const mailTo = (questionId: string, address: string) => poll(`${questionId}'s mail to ${address}`, () => mailsOf(questionId).find((r) => r.to.includes(address)));
/** The answer page's link in a mail (its text part), on the server's own address. */
const pageOf = (mail: { mail: { text?: string } }) => {
  const url = /https:\/\/parley\.example(\/answer\/[^\s?]+)/.exec(mail.mail.text ?? "")?.[1];
  if (!url) throw new Error(`no answer link in ${mail.mail.text}`);
  return `${server.url}${url}`;
};
/** The page's form sent as a browser sends it: form-encoded, from the server's own origin. */
const submit = (page: string, fields: Record<string, string>, origin = server.url) =>
  fetch(page.replace("/answer/", "/api/answer/"), {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin },
    body: new URLSearchParams(fields).toString(),
  });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-email-"));
  smtp = await startSmtpStandIn();
  databaseFile = path.join(dir, "p.db");
  server = await startServerProcess({
    port: await freePort(),
    databaseFile,
    env: { PARLEY_SMTP_URL: smtp.url, PARLEY_EMAIL_FROM: "Parley <parley@example.com>", PARLEY_PUBLIC_URL: "https://parley.example", PARLEY_EMAIL_RETRY_MS: "100" },
  });
  rest = restClient(server.url);
  await addPeople(`file:${databaseFile}`, ["ann", "bob", "cat"]);
  sessionId = (await rest.ok(rest.post<{ id: string }>("/api/sessions", { title: "team" }))).id;
  for (const user of ["ann", "bob", "cat"]) await rest.ok(rest.post(`/api/sessions/${sessionId}/members`, { user }));
  await rest.ok(rest.put("/api/users/ann/email", { email: "ann@example.com" }));
  await rest.ok(rest.put("/api/users/bob/email", { email: "bob@example.com" }));
  // Cat has an address but asked for no questions by mail.
  await rest.ok(rest.put("/api/users/cat/email", { email: "cat@example.com", questions: false }));
}, 90_000);

afterAll(async () => {
  await server?.kill();
  await smtp?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("email", { timeout: 60_000 }, () => {
  it("mails a question to each person who may answer it and wants questions by mail, with the answers as links and the card's", async () => {
    const q = await ask({ question: "Ship 4.2?", options: ["yes", "no"] });
    const toAnn = await mailTo(q.id, "ann@example.com");
    await mailTo(q.id, "bob@example.com");
    expect(toAnn.user).toBe("parley");
    expect(toAnn.mail.from?.value).toEqual([{ name: "Parley", address: "parley@example.com" }]);
    expect(toAnn.mail.subject).toBe("release asks: Ship 4.2?");
    expect(toAnn.mail.text).toMatch(/yes: https:\/\/parley\.example\/answer\/\S+\?pick=choice-0/);
    expect(toAnn.mail.text).toContain(`The whole card in Parley: https://parley.example/s/${q.sessionId}#question-${q.id}`);
    expect(toAnn.mail.html).toContain("Ship 4.2?");
    // Each person's link is their own.
    expect(pageOf(toAnn)).not.toBe(pageOf(await mailTo(q.id, "bob@example.com")));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      mailsOf(q.id)
        .flatMap((r) => r.to)
        .sort(),
    ).toEqual(["ann@example.com", "bob@example.com"]);
  });

  it("opening the link answers nothing; its form answers as the link's person, and the page then says how it ended", async () => {
    const q = await ask({ question: "Colour?", options: ["red", "blue"] });
    const page = pageOf(await mailTo(q.id, "ann@example.com"));
    const opened = await fetch(`${page}?pick=choice-1`);
    expect(opened.status).toBe(200);
    const html = await opened.text();
    expect(html).toContain("Colour?");
    // A button each, the one the mail's link picked shown first (focused): a plain form, no script needed.
    expect(html).toMatch(/<button(?=[^>]*name="choice")(?=[^>]*value="1")(?=[^>]*autofocus)[^>]*>blue<\/button>/);
    expect(html).toMatch(/<form[^>]*method="post"/);
    expect((await question(q.id)).status).toBe("pending");

    const sent = await submit(page, { choice: "1" });
    expect(sent.status).toBe(303);
    expect(sent.headers.get("location")).toBe(new URL(page).pathname);
    expect(await question(q.id)).toMatchObject({ status: "answered", answer: "blue", closedBy: "email", closedByUser: "ann" });
    expect(await (await fetch(page)).text()).toContain("Answered &quot;blue&quot; by you, from an email");
  });

  it("a link after its question was settled answers nothing and says by whom; a form from another site is refused", async () => {
    const q = await ask({ question: "Who deploys?", options: ["ann", "bob"] });
    const annPage = pageOf(await mailTo(q.id, "ann@example.com"));
    const bobPage = pageOf(await mailTo(q.id, "bob@example.com"));
    expect((await submit(annPage, { choice: "0" }, "https://evil.example")).status).toBe(403);
    expect((await question(q.id)).status).toBe("pending");
    await submit(bobPage, { choice: "1" });
    const late = await submit(annPage, { choice: "0" });
    expect(late.headers.get("location")).toMatch(/\?error=Already%20settled/);
    expect(await question(q.id)).toMatchObject({ answer: "bob", closedByUser: "bob" });
    expect(await (await fetch(annPage)).text()).toContain("by bob, from an email");
  });

  it("a link whose person was removed answers nothing", async () => {
    const [dan] = await addPeople(`file:${databaseFile}`, ["dan"]);
    expect(dan).toBeDefined();
    await rest.ok(rest.post(`/api/sessions/${sessionId}/members`, { user: "dan" }));
    await rest.ok(rest.put("/api/users/dan/email", { email: "dan@example.com" }));
    const q = await ask({ question: "Dan's?", options: ["yes", "no"], answerers: ["dan", "ann"] });
    const page = pageOf(await mailTo(q.id, "dan@example.com"));
    await rest.ok(rest.del("/api/users/dan"));
    expect(await (await fetch(page)).text()).toContain("no longer in Parley");
    const refused = await submit(page, { choice: "0" });
    expect(decodeURIComponent(refused.headers.get("location") ?? "")).toContain("no longer in Parley");
    expect((await question(q.id)).status).toBe("pending");
  });

  it("a confirm, free text and an approval's rejection answer from their pages; a made-up link is refused", async () => {
    const run = await rest.ok(rest.post<{ id: string; sessionId: string }>(`/api/sessions/${sessionId}/runs`, { function: "test.ask", input: { prompt: "Archive?", confirm: true } }));
    const confirm = await poll("the confirm", async () => (await rest.ok(rest.get<Question[]>(`/api/questions?session_id=${run.sessionId}`))).find((x) => x.runId === run.id));
    await submit(pageOf(await mailTo(confirm.id, "bob@example.com")), { confirm: "no" });
    expect(await question(confirm.id)).toMatchObject({ answer: false, closedBy: "email" });

    const text = await ask({ question: "Release notes?" });
    const page = pageOf(await mailTo(text.id, "ann@example.com"));
    expect((await submit(page, { text: "  " })).headers.get("location")).toMatch(/error=Write%20an%20answer/);
    await submit(page, { text: "Faster cards." });
    expect(await question(text.id)).toMatchObject({ answer: "Faster cards." });

    const approval = await ask({ kind: "approval", tool_name: "deploy", input: { env: "prod" } });
    const mail = await mailTo(approval.id, "ann@example.com");
    expect(mail.mail.text).toMatch(/Allow once: \S+\?pick=once/);
    await submit(pageOf(mail), { approval: "reject", feedback: "Not today." });
    expect(await question(approval.id)).toMatchObject({ status: "declined", feedback: "Not today.", closedBy: "email" });

    expect(await (await fetch(`${server.url}/answer/not-a-link.abc`)).text()).toContain("This link answers nothing");
  });

  it("a mail server that says try again later gets the mail again", async () => {
    smtp.refuseNext(1);
    const q = await ask({ question: "Busy mail?", options: ["yes", "no"], answerers: ["ann"] });
    await poll("mailed after a 451", () => mailsOf(q.id).find((r) => r.to.includes("ann@example.com")), 20_000);
    const run = await rest.ok(rest.get<{ email: Array<{ status: string; attempts: number }> }>(`/api/runs/${q.runId}`));
    expect(run.email).toEqual([expect.objectContaining({ status: "sent" })]);
  });
});
