import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Question } from "../lib/protocol/question";
import { addPeople } from "./helpers/people";
import { eventOn, handshakeOutcome, openTab, poll, restClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { nextEvent, startTestApp, type TestApp } from "./helpers/test-app";
import { disconnectOf, expectHeardPromptly } from "./helpers/timing";

/** A revocation closes the sockets signed in with what it revoked at once, not at the next periodic check. */

const root = path.resolve(import.meta.dirname, "..");
const TIMEOUT = 60_000;

describe("over a real socket, with the periodic check out of the way", () => {
  let app: TestApp;
  afterEach(async () => app?.close());

  it("revoking an API token disconnects its sockets before the revocation answers; a reply sent after it is never applied", { timeout: TIMEOUT }, async () => {
    // An hour between periodic checks: a disconnect within the test can only come from the revocation.
    app = await startTestApp({ revocationCheckMs: 3_600_000 });
    const session = await app.parley.sessions.createSession();
    const { token, info } = await app.parley.access.apiTokens.create({ ownerId: "local", name: "terminal" });
    const revoked = await app.client({ token });
    const kept = await app.client();
    expect((await revoked.emitWithAck("session.join", { sessionId: session.id })).ok).toBe(true);
    const asked = nextEvent(revoked, "question.asked");
    await app.parley.runs.startRun({ sessionId: session.id, functionName: "test.ask", input: { prompt: "Env?", options: ["production", "staging"] } });
    const question = await asked;
    const gone = disconnectOf(revoked);

    const started = performance.now();
    await app.parley.revokeApiToken(info.id);
    // Dropped before the revocation answered: the server holds no socket signed in with the token any more.
    const held = [...app.realtime.io.sockets.sockets.values()].filter((s) => s.data.principal?.apiTokenId === info.id);
    expect(held.map((s) => s.id)).toEqual([]);
    // Sent the moment the revocation answered, before this client may have heard of it.
    const reply = revoked.timeout(1_000).emitWithAck("question.reply", { id: question.id, value: "production" });
    const { reason, at } = await gone;
    expect(reason).toBe("io server disconnect");
    const ms = at - started;
    await expect(reply).rejects.toThrow();
    expect((await app.parley.questions.getQuestion({ id: question.id })).status).toBe("pending");
    expect(kept.connected).toBe(true);
    await expect(app.client({ token })).rejects.toThrow(/unauthorized/);
    console.log(`revoked API token: its socket heard the disconnect ${ms.toFixed(1)} ms after the revocation began`);
  });
});

describe("from the CLI, against the production build", () => {
  let dir: string;
  let server: ServerProcess;
  const tabs: Tab[] = [];
  const databaseFile = () => path.join(dir, "p.db");
  const cli = async (...args: string[]) =>
    (await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${databaseFile()}`], { env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" } }))
      .stdout;
  const serverToken = () => readFileSync(`${databaseFile()}.token`, "utf8").trim();
  const tab = async (token: string) => {
    const t = await openTab(server.url, { token });
    tabs.push(t);
    return t;
  };

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-revocation-"));
    // No PARLEY_TOKEN: the server keeps its own token, so it can be rotated.
    server = await startServerProcess({ port: await freePort(), databaseFile: databaseFile(), env: { PARLEY_TOKEN: undefined } });
  }, TIMEOUT);
  afterAll(async () => {
    for (const t of tabs) t.disconnect();
    await server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it("parley token revoke closes the token's sockets before it returns, and their replies are refused", { timeout: TIMEOUT }, async () => {
    const rest = restClient(server.url, { token: serverToken() });
    const session = await rest.ok(rest.post("/api/sessions", {}));
    const apiToken = (await cli("token", "create", "--name", "terminal")).split("\n")[0]!;
    const id = /^pat_([A-Za-z0-9]+)_/.exec(apiToken)![1]!;
    const socket = await tab(apiToken);
    expect((await socket.emitWithAck("session.join", { sessionId: session.id })).ok).toBe(true);
    const asked = eventOn(socket, "question.asked");
    await rest.ok(rest.post(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Env?", options: ["production", "staging"] } }));
    const question = await asked;
    const gone = disconnectOf(socket);

    expect(await cli("token", "revoke", id)).toMatch(new RegExp(`Revoked ${id} \\(terminal\\): refused from now on, and its connections closed`));
    const returned = performance.now();
    const reply = socket.timeout(1_000).emitWithAck("question.reply", { id: question.id, value: "production" });
    // Dropped before the CLI returned: the client hears it at once, not at the server's periodic check (every 10 s).
    await expectHeardPromptly(server.url, gone, { since: returned, what: "the CLI returned" });
    await expect(reply).rejects.toThrow();
    expect((await rest.ok(rest.get<Question>(`/api/questions/${question.id}`))).status).toBe("pending");
    expect(await handshakeOutcome(server.url, { token: apiToken })).toBe("unauthorized");
    expect((await restClient(server.url, { token: apiToken }).get("/api/sessions")).status).toBe(401);
    // Listed as revoked; revoking again changes nothing.
    expect(await cli("token", "list")).toMatch(new RegExp(`${id} .*REVOKED`));
    expect(await cli("token", "revoke", id)).toContain(`Revoked ${id}`);
  });

  /** A question's event stream, read as it arrives: its events by name, and whether it has ended. */
  function openEvents(questionId: string, token: string) {
    const events: Array<{ event: string; data: unknown }> = [];
    let ended = false;
    const done = (async () => {
      const res = await fetch(`${server.url}/api/questions/${questionId}/events`, { headers: { authorization: `Bearer ${token}` } });
      const decoder = new TextDecoder();
      let buffer = "";
      const reader = res.body!.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        buffer += decoder.decode(read.value, { stream: true });
        for (let at = buffer.indexOf("\n\n"); at >= 0; at = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, at);
          buffer = buffer.slice(at + 2);
          const name = /^event: (.+)$/m.exec(block)?.[1];
          const data = /^data: (.+)$/m.exec(block)?.[1];
          if (name && data) events.push({ event: name, data: JSON.parse(data) });
        }
      }
      ended = true;
    })();
    return { events, done, ended: () => ended };
  }

  it("a held request ends when its credential or membership does, with a typed error, never with a later answer: event streams and ?wait= reads", { timeout: TIMEOUT }, async () => {
    const owner = restClient(server.url, { token: serverToken() });
    const [bea, cid] = await addPeople(`file:${databaseFile()}`, ["bea", "cid"]);
    const session = await owner.ok(owner.post<{ id: string }>("/api/sessions", {}));
    for (const user of ["bea", "cid"]) await owner.ok(owner.post(`/api/sessions/${session.id}/members`, { user }));
    const asked = await tab(serverToken());
    expect((await asked.emitWithAck("session.join", { sessionId: session.id })).ok).toBe(true);
    const question = eventOn(asked, "question.asked");
    await owner.ok(owner.post(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Env?", options: ["production", "staging"] } }));
    const q = await question;

    // bea's token is revoked; cid is removed from the chat. Each has a stream and a held read open.
    const beaStream = openEvents(q.id, bea!.token);
    const cidStream = openEvents(q.id, cid!.token);
    await poll("both streams opened", async () => beaStream.events.length === 1 && cidStream.events.length === 1);
    const beaRead = restClient(server.url, { token: bea!.token }).get(`/api/questions/${q.id}?wait=60`);
    const cidRead = restClient(server.url, { token: cid!.token }).get(`/api/questions/${q.id}?wait=60`);
    const beaId = /^pat_([A-Za-z0-9]+)_/.exec(bea!.token)![1]!;

    const started = performance.now();
    await cli("token", "revoke", beaId);
    await owner.ok(owner.del(`/api/sessions/${session.id}/members/cid`));
    expect(await beaRead).toMatchObject({ status: 401, body: { error: { code: "token_revoked" } } });
    expect(await cidRead).toMatchObject({ status: 403, body: { error: { code: "no_longer_a_member" } } });
    await Promise.all([beaStream.done, cidStream.done]);
    const ms = performance.now() - started;
    expect(beaStream.events.map((e) => e.event)).toEqual(["question", "error"]);
    expect(beaStream.events[1]!.data).toMatchObject({ error: { code: "token_revoked" } });
    expect(cidStream.events.map((e) => e.event)).toEqual(["question", "error"]);
    expect(cidStream.events[1]!.data).toMatchObject({ error: { code: "no_longer_a_member" } });
    console.log(`held requests ended ${ms.toFixed(0)} ms after the revocation began (a revocation from the CLI is seen at the next check, every second)`);

    // The answer given after reaches neither.
    await owner.ok(owner.post(`/api/questions/${q.id}/reply`, { value: "staging" }));
    await new Promise((r) => setTimeout(r, 200));
    expect([...beaStream.events, ...cidStream.events].map((e) => e.event)).not.toContain("settled");
    expect(JSON.stringify([beaStream.events, cidStream.events])).not.toContain('"answer":"staging"');
  });

  it("only an administrator may revoke a token over REST (a person added with --admin too), and a body must name one", { timeout: TIMEOUT }, async () => {
    const [annPerson] = await addPeople(`file:${databaseFile()}`, ["ann"]);
    const [adaPerson] = await addPeople(`file:${databaseFile()}`, ["ada"], { admin: true });
    const annId = /^pat_([A-Za-z0-9]+)_/.exec(annPerson!.token)![1]!;
    const ann = restClient(server.url, { token: annPerson!.token });
    expect(await ann.post("/api/auth/revoke-token", { id: annId })).toMatchObject({ status: 403, body: { error: { code: "forbidden", message: "Only an administrator can revoke API tokens." } } });
    const owner = restClient(server.url, { token: serverToken() });
    expect(await owner.post("/api/auth/revoke-token", {})).toMatchObject({ status: 400 });
    expect(await owner.post("/api/auth/revoke-token", { id: annId, extra: 1 })).toMatchObject({ status: 400 });
    expect(await owner.post("/api/auth/revoke-token", { id: "no-such-token" })).toMatchObject({ status: 400 });
    expect((await ann.get("/api/sessions")).status).toBe(200);
    const ada = restClient(server.url, { token: adaPerson!.token });
    expect(await ada.post("/api/auth/revoke-token", { id: annId })).toMatchObject({ status: 200, body: { id: annId, revokedAt: expect.any(String) } });
    expect((await ann.get("/api/sessions")).status).toBe(401);
  });

  it("parley token rotate closes the old server token's sockets before it returns", { timeout: TIMEOUT }, async () => {
    const old = serverToken();
    const socket = await tab(old);
    const gone = disconnectOf(socket);
    await cli("token", "rotate");
    // Dropped before the CLI returned (no periodic check looks at sockets of the server token at all).
    await expectHeardPromptly(server.url, gone, { since: performance.now(), what: "the CLI returned" });
    await poll("the new token", () => serverToken() !== old);
    expect(await handshakeOutcome(server.url, { token: old })).toBe("unauthorized");
    expect(await handshakeOutcome(server.url, { token: serverToken() })).toBe("connected");
  });
});
