import { execFile } from "node:child_process";
import { request } from "node:http";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventOn, handshakeOutcome, openTab, poll, restClient, type Tab } from "./helpers/remote";
import { freePort, productionServerEnv, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

/** Access over the production build: credentials, owners, sockets, pages. */

const root = path.resolve(import.meta.dirname, "..");
const TIMEOUT = 60_000;
let dir: string;
let server: ServerProcess;
const tabs: Tab[] = [];

async function cli(...args: string[]) {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${path.join(dir, "p.db")}`], {
    env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
  });
  return stdout;
}

async function tab(url: string, options: Parameters<typeof openTab>[1] = {}): Promise<Tab> {
  const t = await openTab(url, options);
  tabs.push(t);
  return t;
}

/** Why a handshake was refused, or "connected". */
const handshake = (url: string, { token, cookie, origin, host }: { token?: string; cookie?: string; origin?: string; host?: string }) =>
  handshakeOutcome(url, { token, headers: { ...(cookie ? { cookie } : {}), ...(origin ? { origin } : {}), ...(host ? { host } : {}) } });

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-access-"));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db") });
}, TIMEOUT);
afterAll(async () => {
  for (const t of tabs) t.disconnect();
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("access", () => {
  it("keeps one owner's sessions, questions and runs invisible to another owner's API token (404, never 403)", { timeout: TIMEOUT }, async () => {
    const owner = restClient(server.url);
    const session = await owner.ok(owner.post("/api/sessions", {}));
    const run = await owner.ok(owner.post(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Mine?" } }));
    const question = await poll("the question", async () => (await owner.get(`/api/questions?session_id=${session.id}`)).body[0]);

    await cli("user", "add", "ann");
    const token = (await cli("token", "create", "--name", "someone else", "--owner", "ann")).split("\n")[0]!;
    expect(token).toMatch(/^pat_/);
    const ann = restClient(server.url, { token });
    expect((await ann.get("/api/sessions")).body).toEqual([]);
    for (const [pathname, code] of [
      [`/api/sessions/${session.id}`, "not_found:session"],
      [`/api/sessions/${session.id}/runs`, "not_found:session"],
      [`/api/questions?session_id=${session.id}`, "not_found:session"],
      [`/api/questions/${question.id}`, "not_found:question"],
      [`/api/runs/${run.id}`, "not_found:run"],
    ] as const) {
      const res = await ann.get(pathname);
      expect(res.status, pathname).toBe(404);
      expect(res.body.error.code).toBe(code);
      // The same answer as for an id that does not exist.
      expect(res.body.error.message).toContain(pathname.includes("session") ? session.id : pathname.includes("questions/") ? question.id : run.id);
    }
    for (const [pathname, body] of [
      [`/api/questions/${question.id}/reply`, { value: "theirs" }],
      [`/api/questions/${question.id}/reject`, {}],
      [`/api/runs/${run.id}/stop`, {}],
      [`/api/runs/${run.id}/resume`, {}],
      [`/api/sessions/${session.id}/messages`, { text: "hi" }],
      [`/api/sessions/${session.id}/runs`, { function: "test.ask" }],
    ] as const) {
      expect((await ann.post(pathname, body)).status, pathname).toBe(404);
    }
    const annTab = await tab(server.url, { token });
    const join = await annTab.emitWithAck("session.join", { sessionId: session.id });
    expect(join).toMatchObject({ ok: false, error: { code: "not_found:session" } });
    const reply = await annTab.emitWithAck("question.reply", { id: question.id, value: "theirs" });
    expect(reply).toMatchObject({ ok: false, error: { code: "not_found:question" } });
    expect((await owner.get(`/api/questions/${question.id}`)).body.status).toBe("pending");

    // Ann's own session is hers alone, and the session list's updates reach only her sockets.
    const ownerTab = await tab(server.url);
    const seenByOwner: string[] = [];
    ownerTab.on("session.updated", (s) => seenByOwner.push(s.id));
    const annUpdate = eventOn(annTab, "session.updated");
    const annSession = await ann.ok(ann.post("/api/sessions", { title: "Ann's" }));
    expect((await annUpdate).id).toBe(annSession.id);
    expect((await owner.get(`/api/sessions/${annSession.id}`)).status).toBe(404);
    await owner.ok(owner.post(`/api/questions/${question.id}/reply`, { value: "mine" }));
    await poll("the owner's update", () => seenByOwner.includes(session.id));
    expect(seenByOwner).not.toContain(annSession.id);

    // A revoked token stops working at once.
    const id = /^pat_([A-Za-z0-9]+)_/.exec(token)![1]!;
    expect(await cli("token", "revoke", id)).toContain(`Revoked ${id}`);
    expect((await ann.get("/api/sessions")).status).toBe(401);
    expect(await handshake(server.url, { token })).toBe("unauthorized");
  });

  it("lets a socket in with the server token, an API token or the session cookie, and nothing else", { timeout: TIMEOUT }, async () => {
    expect(await handshake(server.url, { token: TEST_TOKEN })).toBe("connected");
    expect(await handshake(server.url, {})).toBe("unauthorized");
    expect(await handshake(server.url, { token: "not-the-token-0123456789" })).toBe("unauthorized");

    const signIn = await fetch(`${server.url}/?token=${TEST_TOKEN}`, { redirect: "manual" });
    const cookie = signIn.headers.get("set-cookie")!.split(";")[0]!;
    expect(await handshake(server.url, { cookie })).toBe("connected");
    expect(await handshake(server.url, { cookie: `${cookie.split("=")[0]}=local.1.forged` })).toBe("unauthorized");
    expect((await fetch(`${server.url}/api/sessions`, { headers: { cookie } })).status).toBe(200);

    // A page of another site, or a rebound host name, cannot open one even with a credential.
    expect(await handshake(server.url, { token: TEST_TOKEN, origin: "https://evil.example" })).not.toBe("connected");
    expect(await handshake(server.url, { token: TEST_TOKEN, host: `evil.example:${new URL(server.url).port}` })).not.toBe("connected");
  });

  it("the token URL sends the browser back to a page of this site, never to another", { timeout: TIMEOUT }, async () => {
    // Sent as it is (fetch would normalise the path): `/.//host/` parses to the path `//host/`.
    const location = await new Promise<string | undefined>((resolve, reject) => {
      const { hostname, port } = new URL(server.url);
      const req = request({ hostname, port, path: `/.//evil.example/x?token=${TEST_TOKEN}` }, (res) => {
        res.resume();
        resolve(res.headers.location);
      });
      req.on("error", reject);
      req.end();
    });
    expect(location).toBe("/evil.example/x");
  });

  it("serves pages with a nonce on every script and no inline script without it", { timeout: TIMEOUT }, async () => {
    const page = await fetch(`${server.url}/`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    expect(page.status).toBe(200);
    const csp = page.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    const html = await page.text();
    const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
    expect(scripts.length).toBeGreaterThan(0);
    for (const s of scripts) expect(s).toContain(`nonce="${nonce}"`);
    expect(page.headers.get("x-frame-options")).toBe("DENY");
  });

  it("refuses to start on a reachable address without PARLEY_TOKEN, and says why", { timeout: TIMEOUT }, async () => {
    const env = productionServerEnv({ port: await freePort(), databaseFile: path.join(dir, "other.db"), env: { HOST: "0.0.0.0" } });
    delete env.PARLEY_TOKEN;
    const started = await promisify(execFile)(process.execPath, [path.join(root, "dist/server.js")], { cwd: root, env, timeout: 30_000 }).then(
      () => ({ code: 0, stderr: "" }),
      (err: { code: number; stderr: string }) => err,
    );
    expect(started.code).toBe(1);
    expect(started.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0.*PARLEY_TOKEN/s);
  });
});
