import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addPeople } from "./helpers/people";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

/**
 * Signing out means signed out: a browser's session cookie is tied to the server token it was
 * issued for, and "sign out everywhere" (REST, CLI) refuses every cookie issued before it.
 */

const root = path.resolve(import.meta.dirname, "..");
const TIMEOUT = 90_000;
const OTHER_TOKEN = "another-token-0123456789abcdef";
let dir: string;
let databaseFile: string;
let port: number;
let server: ServerProcess | undefined;
const sockets: Socket[] = [];

const start = async (token: string) => {
  server = await startServerProcess({ port, databaseFile, env: { PARLEY_TOKEN: token } });
  return server;
};
const stop = async () => {
  await server?.kill("SIGTERM");
  server = undefined;
};

/** Signs a browser in with the printed URL's token; its session cookie (`name=value`). */
async function signIn(token: string): Promise<string> {
  const res = await fetch(`${server!.url}/?token=${token}`, { redirect: "manual" });
  const cookie = res.headers.get("set-cookie");
  if (!cookie) throw new Error(`signing in gave no cookie (HTTP ${res.status})`);
  return cookie.split(";")[0]!;
}

/** The status of an API read with this cookie. */
const statusWith = async (cookie: string) => (await fetch(`${server!.url}/api/sessions`, { headers: { cookie } })).status;

/** A browser tab's socket with this cookie, connected; or why it was refused. */
function tabWith(cookie: string): Promise<Socket | string> {
  return new Promise((resolve) => {
    const socket = connect(server!.url, { transports: ["websocket"], reconnection: false, forceNew: true, extraHeaders: { cookie } });
    socket.once("connect", () => {
      sockets.push(socket);
      resolve(socket);
    });
    socket.once("connect_error", (err) => {
      socket.disconnect();
      resolve(err.message);
    });
  });
}

const signOutEverywhere = (headers: Record<string, string>) =>
  fetch(`${server!.url}/api/auth/sign-out-everywhere`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" });

async function cli(...args: string[]) {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(root, "bin/parley.mjs"), ...args, "--database", `file:${databaseFile}`], {
    env: { ...process.env, PARLEY_URL: "", PARLEY_TOKEN: "" },
  });
  return stdout;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-sign-out-"));
  databaseFile = path.join(dir, "p.db");
  port = await freePort();
});
afterAll(async () => {
  for (const s of sockets) s.disconnect();
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("a session cookie", () => {
  it("is refused once the server runs with another token", { timeout: TIMEOUT }, async () => {
    await start(TEST_TOKEN);
    const cookie = await signIn(TEST_TOKEN);
    expect(await statusWith(cookie)).toBe(200);
    await stop();

    // Same database, same cookie key: only the token changed.
    await start(OTHER_TOKEN);
    expect(await statusWith(cookie)).toBe(401);
    expect(await tabWith(cookie)).toBe("unauthorized");
    // A page sends it to the sign-in page and clears the stale cookie.
    const page = await fetch(`${server!.url}/`, { redirect: "manual", headers: { cookie } });
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/sign-in/);
    expect(page.headers.get("set-cookie")).toMatch(/Max-Age=0/);
    // The new token signs in again.
    expect(await statusWith(await signIn(OTHER_TOKEN))).toBe(200);
  });
});

describe("a server started without PARLEY_TOKEN", () => {
  it("keeps the token it made in the data folder, so a restart signs no browser out", { timeout: TIMEOUT }, async () => {
    await stop();
    const own = path.join(dir, "own.db");
    const printed = (s: ServerProcess) => /^> Open http:\/\/\S+\/\?token=(\S+)$/m.exec(s.output())?.[1];
    const first = await startServerProcess({ port, databaseFile: own, env: { PARLEY_TOKEN: undefined } });
    server = first;
    const token = printed(first)!;
    expect(token).toBeTruthy();
    expect(first.output()).toContain(`kept in ${own}.token`);
    expect(statSync(`${own}.token`).mode & 0o777).toBe(0o600);
    const cookie = await signIn(token);
    await stop();

    server = await startServerProcess({ port, databaseFile: own, env: { PARLEY_TOKEN: undefined } });
    expect(printed(server)).toBe(token);
    expect(await statusWith(cookie)).toBe(200);
    await stop();

    // Deleting the file makes a new token: the old cookie goes with the old token.
    rmSync(`${own}.token`);
    server = await startServerProcess({ port, databaseFile: own, env: { PARLEY_TOKEN: undefined } });
    expect(printed(server)).not.toBe(token);
    expect(await statusWith(cookie)).toBe(401);
    await stop();
  });
});

describe("signing out everywhere", () => {
  it("is an administrator's: a person added with --admin may, from their browser; another person may not (403)", { timeout: TIMEOUT }, async () => {
    if (!server) await start(OTHER_TOKEN);
    const res = await signOutEverywhere({});
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("unauthorized");
    const [ann] = await addPeople(`file:${databaseFile}`, ["ann"], { serverToken: OTHER_TOKEN });
    const [ada] = await addPeople(`file:${databaseFile}`, ["ada"], { admin: true, serverToken: OTHER_TOKEN });
    const before = await signIn(OTHER_TOKEN);

    const annCredentials: Record<string, string>[] = [{ authorization: `Bearer ${ann!.token}` }, { cookie: ann!.cookie.header }];
    for (const credential of annCredentials) {
      const refused = await signOutEverywhere(credential);
      expect(refused.status).toBe(403);
      expect((await refused.json()).error).toEqual({ code: "forbidden", message: "Only an administrator can sign every browser out." });
    }
    expect(await statusWith(before)).toBe(200);

    const byAda = await signOutEverywhere({ cookie: ada!.cookie.header });
    expect(byAda.status).toBe(200);
    expect(await statusWith(before)).toBe(401);
    expect(await statusWith(ada!.cookie.header)).toBe(401);
  });

  it("refuses every cookie issued before it, disconnects their sockets, and accepts a cookie issued after", { timeout: TIMEOUT }, async () => {
    if (!server) await start(OTHER_TOKEN);
    const mine = await signIn(OTHER_TOKEN);
    const theirs = await signIn(OTHER_TOKEN);
    const tab = await tabWith(theirs);
    if (typeof tab === "string") throw new Error(`the tab was refused: ${tab}`);
    const disconnected = new Promise<string>((resolve) => tab.once("disconnect", resolve));

    const res = await signOutEverywhere({ cookie: mine });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ signedOut: "everywhere" });
    // This browser's cookie is cleared on the way.
    expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);

    expect(await statusWith(mine)).toBe(401);
    expect(await statusWith(theirs)).toBe(401);
    expect(await disconnected).toBe("io server disconnect");
    expect(await tabWith(theirs)).toBe("unauthorized");

    const after = await signIn(OTHER_TOKEN);
    expect(await statusWith(after)).toBe(200);
    expect(typeof (await tabWith(after))).toBe("object");
    // The server token itself is not a cookie: scripts keep working.
    expect((await fetch(`${server!.url}/api/sessions`, { headers: { authorization: `Bearer ${OTHER_TOKEN}` } })).status).toBe(200);
  });

  it("from the CLI: through the running server, or in the database while none runs", { timeout: TIMEOUT }, async () => {
    if (!server) await start(OTHER_TOKEN);
    const before = await signIn(OTHER_TOKEN);
    expect(await cli("sign-out-everywhere")).toMatch(/Signed out every browser.*tabs disconnected/);
    expect(await statusWith(before)).toBe(401);

    const kept = await signIn(OTHER_TOKEN);
    await stop();
    expect(await cli("sign-out-everywhere")).toMatch(/Signed out every browser.*within a second/);
    await start(OTHER_TOKEN);
    expect(await statusWith(kept)).toBe(401);
    expect(await statusWith(await signIn(OTHER_TOKEN))).toBe(200);
  });
});
