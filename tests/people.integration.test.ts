import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SIGN_IN_LINK_PARAM } from "../lib/protocol/teams";
import type { AuditPage } from "../lib/protocol/audit";
import { handshakeOutcome, openTab, restClient, type Tab } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { disconnectOf, expectHeardPromptly } from "./helpers/timing";

/**
 * People over the production build: the CLI adds a person, their link signs a fresh browser in
 * once, and removing them (the CLI, through the server) ends their open sockets at once and refuses
 * their cookie and their API token.
 */

const root = path.resolve(import.meta.dirname, "..");
const TIMEOUT = 90_000;
let dir: string;
let server: ServerProcess;
const tabs: Tab[] = [];

const cli = async (...args: string[]) =>
  (
    await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${path.join(dir, "p.db")}`], {
      env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
    })
  ).stdout;

/** A browser's sign-in with a link: the answer, and the session cookie it set (`name=value`). */
async function signInWith(link: string): Promise<{ status: number; body: any; cookie: string | null }> {
  const res = await fetch(`${server.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ link }) });
  return { status: res.status, body: await res.json(), cookie: res.headers.get("set-cookie")?.split(";")[0] ?? null };
}

const withCookie = (cookie: string, pathname: string) => fetch(`${server.url}${pathname}`, { headers: { cookie } });

/** A browser tab's socket, signed in with its cookie. */
function tabWith(cookie: string): Promise<Tab> {
  return new Promise((resolve, reject) => {
    const socket: Tab = connect(server.url, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    socket.once("connect", () => (tabs.push(socket), resolve(socket)));
    socket.once("connect_error", reject);
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-people-"));
  server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db") });
}, TIMEOUT);
afterAll(async () => {
  for (const t of tabs) t.disconnect();
  await server?.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("a person", () => {
  it("is added by the CLI, signs in once with their link, and once removed is refused everywhere at once", { timeout: TIMEOUT }, async () => {
    const added = await cli("user", "add", "bob");
    const url = /^ {2}(http\S+)$/m.exec(added)?.[1];
    expect(url, added).toMatch(new RegExp(`^${server.url}/\\?${SIGN_IN_LINK_PARAM}=sil_`));
    const link = new URL(url!).searchParams.get(SIGN_IN_LINK_PARAM)!;

    // Following the link leads to the sign-in page, which spends it: the GET itself signs nobody in.
    const followed = await fetch(url!, { redirect: "manual" });
    expect(followed.status).toBe(303);
    expect(followed.headers.get("location")).toBe(`/sign-in?${SIGN_IN_LINK_PARAM}=${link}&next=%2F`);
    expect(followed.headers.get("set-cookie")).toBeNull();

    const first = await signInWith(link);
    expect(first).toMatchObject({ status: 200, body: { ownerId: "bob", via: "cookie", admin: false }, cookie: expect.stringMatching(/^parley_session_/) });
    const cookie = first.cookie!;
    expect(await (await withCookie(cookie, "/api/auth/session")).json()).toEqual({
      ownerId: "bob",
      via: "cookie",
      admin: false,
      model: { label: "Offline script", detail: expect.any(String), scripted: true },
    });
    // Good once.
    expect(await signInWith(link)).toMatchObject({
      status: 401,
      body: { error: { code: "unauthorized", message: "This sign-in link was already used. Ask for a new one: parley user link bob" } },
      cookie: null,
    });

    const bobToken = (await cli("token", "create", "--name", "bob's script", "--user", "bob")).split("\n")[0]!;
    const bob = restClient(server.url, { token: bobToken });
    expect((await bob.get("/api/sessions")).status).toBe(200);
    // Not an administrator: people are not theirs to list, add or remove.
    expect(await bob.get("/api/users")).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    expect((await withCookie(cookie, "/api/users")).status).toBe(403);
    expect((await bob.post("/api/users", { name: "eve" })).status).toBe(403);
    expect((await bob.del("/api/users/bob")).status).toBe(403);

    const cookieTab = await tabWith(cookie);
    const tokenTab = await openTab(server.url, { token: bobToken });
    tabs.push(tokenTab);
    const admins = await openTab(server.url);
    tabs.push(admins);
    const gone = [disconnectOf(cookieTab), disconnectOf(tokenTab)];

    expect(await cli("user", "remove", "bob")).toBe("Removed bob: their sign-in links, browser sessions and 1 API token are refused from now on, and their open connections closed.\n");
    const returned = performance.now();
    // Ended by the removal itself, not by the server's periodic check (every 10 s).
    await Promise.all(gone.map((g, i) => expectHeardPromptly(server.url, g, { since: returned, what: `the CLI returned (${["cookie", "token"][i]} tab)` })));
    expect(admins.connected).toBe(true);

    expect((await withCookie(cookie, "/api/sessions")).status).toBe(401);
    expect((await bob.get("/api/sessions")).status).toBe(401);
    expect(await handshakeOutcome(server.url, { headers: { cookie } })).toBe("unauthorized");
    expect(await handshakeOutcome(server.url, { token: bobToken })).toBe("unauthorized");
    expect(await cli("user", "list")).toMatch(/^No people yet/);
  });

  it("added as an administrator manages people too; a name is taken once", { timeout: TIMEOUT }, async () => {
    await cli("user", "add", "ann", "--admin");
    const annToken = (await cli("token", "create", "--name", "ann's", "--owner", "ann")).split("\n")[0]!;
    const ann = restClient(server.url, { token: annToken });
    const made = await ann.post("/api/users", { name: "cy" });
    expect(made).toMatchObject({ status: 201, body: { person: { name: "cy", admin: false }, signInLink: expect.stringContaining(`${server.url}/?signin=sil_`) } });
    expect(await ann.post("/api/users", { name: "cy" })).toMatchObject({ status: 409, body: { error: { code: "person_exists" } } });
    expect(await ann.post("/api/users", { name: "local" })).toMatchObject({ status: 400 });
    const again = await ann.post("/api/users/cy/link", {});
    expect(again).toMatchObject({ status: 200, body: { name: "cy", signInLink: expect.stringContaining("?signin=sil_") } });
    // The first link was replaced by the second.
    expect((await signInWith(new URL(made.body.signInLink).searchParams.get(SIGN_IN_LINK_PARAM)!)).status).toBe(401);
    expect((await signInWith(new URL(again.body.signInLink).searchParams.get(SIGN_IN_LINK_PARAM)!)).status).toBe(200);
    expect((await ann.get("/api/users")).body.people.map((p: { name: string }) => p.name)).toEqual(["ann", "cy"]);
    expect(await ann.del("/api/users/nobody")).toMatchObject({ status: 404, body: { error: { code: "not_found:person" } } });
    expect(await ann.del("/api/users/cy")).toMatchObject({ status: 200, body: { person: { name: "cy" }, revokedTokens: [] } });
  });
});

describe("one name per person", () => {
  it("the CLI and REST rename the administrator and a person: every tab hears it at once, and the audit names them so", { timeout: TIMEOUT }, async () => {
    const admin = restClient(server.url);
    expect(await admin.get("/api/names")).toMatchObject({ status: 200, body: { names: { local: "Administrator" } } });
    const tab = await openTab(server.url);
    tabs.push(tab);
    const heard: unknown[] = [];
    tab.on("person.renamed", (renamed: unknown) => heard.push(renamed));

    expect(await cli("user", "rename", "local", "Boss")).toBe("The administrator (local) is shown as Boss everywhere: open tabs show it now.\n");
    await expect.poll(() => heard).toEqual([{ name: "local", displayName: "Boss" }]);
    expect(await cli("user", "rename", "local", "not a name").catch((err: { stderr: string }) => err.stderr)).toMatch(/letters, digits, dot, dash and underscore/);

    await cli("user", "add", "dana");
    const danaToken = (await cli("token", "create", "--name", "dana's", "--user", "dana")).split("\n")[0]!;
    const dana = restClient(server.url, { token: danaToken });
    // A person renames themselves (by their id or the name they are shown by), nobody else.
    expect(await dana.patch("/api/users/dana", { displayName: "Dee" })).toMatchObject({ status: 200, body: { name: "dana", displayName: "Dee" } });
    expect(await dana.patch("/api/users/Dee", { displayName: "Dede" })).toMatchObject({ status: 200, body: { name: "dana", displayName: "Dede" } });
    expect(await dana.patch("/api/users/local", { displayName: "Dee" })).toMatchObject({ status: 403, body: { error: { code: "forbidden" } } });
    // Unique among people, in any case; checked as a name is.
    expect(await dana.patch("/api/users/dana", { displayName: "boss" })).toMatchObject({
      status: 409,
      body: { error: { code: "person_exists", message: '"Boss" is already the administrator\'s name: pick another.' } },
    });
    expect(await dana.patch("/api/users/dana", { displayName: "Dee Dee" })).toMatchObject({ status: 400 });
    expect(await admin.patch("/api/users/nobody", { displayName: "Zed" })).toMatchObject({ status: 404, body: { error: { code: "not_found:person" } } });
    await expect.poll(() => heard.length).toBe(3);
    expect(heard.at(-1)).toEqual({ name: "dana", displayName: "Dede" });

    // A person reads their own name, the administrator's and those who share a chat with them: not the list of all people.
    expect(await dana.get("/api/names")).toMatchObject({ status: 200, body: { names: { local: "Boss", dana: "Dede" } } });
    expect(Object.keys((await dana.get<{ names: Record<string, string> }>("/api/names")).body.names).sort()).toEqual(["dana", "local"]);
    expect(Object.keys((await admin.get<{ names: Record<string, string> }>("/api/names")).body.names)).toEqual(expect.arrayContaining(["dana", "local", "ann"]));
    expect(await cli("user", "list")).toMatch(/^dana \(shown as Dede\) {2}added /m);
    // The JSON keeps ids.
    expect((JSON.parse(await cli("user", "list", "--json")) as { people: Array<{ name: string }> }).people.find((p) => p.name === "dana")).toMatchObject({ name: "dana", displayName: "Dede" });

    // A question the administrator answered: the audit keeps the id, and says the one name.
    const asked = await admin.ok(admin.post<{ id: string }>("/api/asks", { question: "Rename done?", from: "names-check", session: "Names" }));
    await admin.ok(admin.post(`/api/questions/${asked.id}/reply`, { value: "yes" }));
    const { entries } = await admin.ok(admin.get<AuditPage>("/api/audit?session=Names"));
    expect(entries).toMatchObject([{ person: "local", personName: "Boss", outcome: 'Answered "yes" by Boss, over REST' }]);
    expect(await cli("audit", "--session", "Names")).toMatch(/names-check asked: Rename done\? {2}→ {2}Answered "yes" by Boss, over REST$/m);
  });
});
