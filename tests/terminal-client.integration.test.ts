import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import type { Run, Session } from "../lib/protocol/entities";
import { eventOn, isFinalStatus, openTab, poll, restClient, type RestClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";
import { Terminal, tmuxMissing } from "./helpers/terminal";
import { tripForm } from "./helpers/questions";

/**
 * `parley chat` in a real pseudo-terminal (tmux) against the production server, beside a socket
 * "tab" joined to the same session: first answer wins across the two, and each side sees the other's.
 */

const missing = tmuxMissing();
if (missing) console.warn(`[terminal-client] skipped: ${missing}`);

let dir: string;
let databaseFile: string;
let port: number;
let server: ServerProcess;
let rest: RestClient;
const open: Array<{ close(): void }> = [];

beforeAll(async () => {
  if (missing) return;
  dir = mkdtempSync(path.join(tmpdir(), "parley-terminal-"));
  databaseFile = path.join(dir, "terminal.db");
  port = await freePort();
  server = await startServerProcess({ port, databaseFile });
  rest = restClient(server.url);
}, 90_000);

afterEach(() => {
  for (const thing of open.splice(0)) thing.close();
});

afterAll(async () => {
  await server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function newSession(): Promise<Session> {
  return rest.ok(rest.post<Session>("/api/sessions", {}));
}

function terminal(sessionId: string, extra: string[] = []): Terminal {
  const t = Terminal.start(["node", "bin/parley.mjs", "chat", sessionId, "--url", server.url, "--token", TEST_TOKEN, ...extra]);
  open.push(t);
  return t;
}

async function tab(sessionId: string): Promise<Tab> {
  const t = await openTab(server.url);
  open.push({ close: () => t.close() });
  const ack = await t.timeout(10_000).emitWithAck("session.join", { sessionId });
  expect(ack.ok).toBe(true);
  return t;
}

async function ask(sessionId: string, input: Record<string, unknown>): Promise<Run> {
  return rest.ok(rest.post<Run>(`/api/sessions/${sessionId}/runs`, { function: "test.ask", input }));
}

async function finished(runId: string): Promise<Run> {
  return poll(`run ${runId} to finish`, async () => {
    const run = await rest.ok(rest.get<Run>(`/api/runs/${runId}`));
    return isFinalStatus(run.status) ? run : undefined;
  });
}

describe.skipIf(missing !== null)("parley chat in a terminal", { timeout: 60_000 }, () => {
  it("answers a choice with a number key; a browser tab sees the question retracted, recorded as answered in a terminal", async () => {
    const session = await newSession();
    const term = terminal(session.id);
    await term.waitFor("● connected");
    const browser = await tab(session.id);

    const asked = eventOn(browser, "question.asked");
    const run = await ask(session.id, { prompt: "Which colour?", options: ["red", "green", "blue"] });
    await asked;
    const screen = await term.waitFor("Which colour?");
    expect(screen).toMatch(/❯ 1\. red[\s\S]*2\. green[\s\S]*3\. blue/);

    const retracted = eventOn(browser, "question.replied");
    await term.ready();
    // A number selects; Enter sends (a key meant for one question never answers the next).
    await term.press("2");
    await term.waitFor(/❯ 2\. green/);
    await term.press("Enter");
    expect(await retracted).toMatchObject({ status: "answered", answer: "green", closedBy: "terminal" });
    // Signed in with the server token: the person at this terminal, the administrator, reads "by you".
    await term.waitFor('Answered "green" by you, in a terminal');
    await term.waitFor('You answered: "green"');
    expect(await finished(run.id)).toMatchObject({ status: "succeeded", result: { outcome: "answered", value: "green" } });
  });

  it("retracts its prompt when a browser tab answers first, and says so; its own late answer changes nothing", async () => {
    const session = await newSession();
    const term = terminal(session.id);
    await term.waitFor("● connected");
    const browser = await tab(session.id);

    const asked = eventOn(browser, "question.asked");
    const run = await ask(session.id, { prompt: "Ship it?", confirm: true });
    const question = await asked;
    await term.waitFor("Ship it?");

    const ack = await browser.timeout(10_000).emitWithAck("question.reply", { id: question.id, value: false });
    expect(ack).toMatchObject({ ok: true, data: { outcome: "answered" } });
    await term.waitForGone("y yes · n no");
    // Below the note, the input line is back. Waited for, not read off the frame where the prompt
    // went: ink writes the note above, then redraws the lines below it, and tmux can catch the
    // screen between the two (CI saw the note with nothing under it).
    await term.waitFor(/Answered No by you, in a browser tab \(before it was answered here\)\n[\s\S]*› /);
    // The key that would have said yes now types into the input line instead.
    term.type("y");
    await term.waitFor("› y");
    expect(await finished(run.id)).toMatchObject({ result: { outcome: "answered", value: false } });
  });

  it("types free text, declines with a reason after Esc, and answers a confirm with y", async () => {
    const session = await newSession();
    const term = terminal(session.id);
    await term.waitFor("● connected");

    const text = await ask(session.id, { prompt: "Project name?" });
    await term.waitFor("Project name?");
    await term.ready();
    term.type("parley-next");
    await term.press("Enter");
    expect(await finished(text.id)).toMatchObject({ result: { value: "parley-next" } });

    const declined = await ask(session.id, { prompt: "Which region?", options: ["eu", "us"] });
    await term.waitFor("Which region?");
    await term.ready();
    await term.press("Escape");
    await term.waitFor("Reason (optional):");
    term.type("not decided yet");
    await term.press("Enter");
    expect(await finished(declined.id)).toMatchObject({ result: { outcome: "declined", feedback: "not decided yet" } });
    await term.waitFor("Declined by you, in a terminal: not decided yet");

    const confirm = await ask(session.id, { prompt: "Proceed?", confirm: true });
    await term.waitFor("Proceed?");
    await term.ready();
    term.type("y");
    await term.waitFor(/❯ 1\. Yes/);
    await term.press("Enter");
    expect(await finished(confirm.id)).toMatchObject({ result: { value: true } });
    await term.waitFor("Answered Yes by you, in a terminal");
  });

  it("fills a form field by field, shows a field's error beside it, and sends typed content", async () => {
    const session = await newSession();
    const term = terminal(session.id);
    await term.waitFor("● connected");
    const schema = tripForm;
    const run = await rest.ok(rest.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.form", input: { prompt: "Book a trip", schema } }));
    await term.waitFor(/Book a trip[\s\S]*❯ Destination\*:[\s\S]*Nights\*:[\s\S]*Currency\*:[\s\S]*Travel insurance: \[ \] No/);
    await term.ready();
    term.type("Lisbon");
    await term.press("Enter");
    await term.waitFor("❯ Nights*:");
    term.type("40");
    await term.waitFor("❯ Nights*: 40");
    await term.press("Up");
    await term.waitFor("✗ a whole number from 1 to 14");
    await term.press("Down");
    await term.waitFor("❯ Nights*: 40");
    await term.press("BSpace");
    await term.waitForGone("✗");
    await term.press("Enter");
    await term.waitFor("‹ choose ›");
    await term.press("Right", "Right");
    await term.waitFor("‹ US dollar ›");
    await term.press("Enter");
    await term.waitFor("❯ Travel insurance");
    await term.press("Space");
    await term.waitFor("[x] Yes");
    await term.press("Enter");
    await term.waitFor("Form accepted");
    expect(await finished(run.id)).toMatchObject({ status: "succeeded", result: { action: "accept", content: { destination: "Lisbon", nights: 4, currency: "USD", insurance: true } } });
  });

  it("shows what is pending when it starts, and again after the server restarts, where an answer still goes through", async () => {
    const session = await newSession();
    const run = await ask(session.id, { prompt: "Before you came?", options: ["a", "b"] });
    await poll("the question", async () => (await rest.ok(rest.get<Question[]>(`/api/questions?session_id=${session.id}`))).length === 1);

    const term = terminal(session.id);
    await term.waitFor("Before you came?");

    await server.kill("SIGKILL");
    await term.waitFor("disconnected");
    server = await startServerProcess({ port, databaseFile });
    await term.waitFor("● connected", 30_000);
    await term.waitFor("Before you came?");
    await term.ready();

    await term.press("Down", "Enter");
    expect(await finished(run.id)).toMatchObject({ status: "succeeded", result: { value: "b" } });
    await term.waitFor('Answered "b" by you, in a terminal');
  });

  it("says so and exits when the chat is deleted elsewhere while a question waits", async () => {
    const session = await newSession();
    const term = terminal(session.id);
    await term.waitFor("● connected");
    await ask(session.id, { prompt: "Still there?", options: ["yes", "no"] });
    await term.waitFor("Still there?");
    expect((await rest.del(`/api/sessions/${session.id}`)).status).toBeLessThan(300);
    await term.waitFor("This chat was deleted.");
    await poll("the client to exit", () => term.exited());
  });

  it("says why it cannot open a chat that does not exist, or with a wrong token, and exits", async () => {
    const missingChat = terminal("no-such-chat");
    await missingChat.waitFor('No chat "no-such-chat"');
    await poll("the client to exit", () => missingChat.exited());

    const wrong = Terminal.start(["node", "bin/parley.mjs", "chat", "--url", server.url, "--token", "not-the-token-0123456789"]);
    open.push(wrong);
    await wrong.waitFor(/error \(unauthorized\): The server at \S+ refused/);
    await poll("the client to exit", () => wrong.exited());
  });
});
