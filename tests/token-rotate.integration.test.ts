import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Session } from "../lib/protocol/entities";
import { isFinalStatus, poll, restClient } from "./helpers/remote";
import { freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";
import { Terminal, tmuxMissing } from "./helpers/terminal";

/**
 * `parley token rotate` against a real server started without PARLEY_TOKEN: the old token is
 * refused at once, the new one (kept beside the database) accepted, a connected `parley chat`
 * takes the new one by itself, and a restart keeps it.
 */

const root = path.resolve(import.meta.dirname, "..");
const missing = tmuxMissing();
let dir: string;
let databaseFile: string;
let port: number;
let server: ServerProcess | undefined;
const open: Array<{ close(): void }> = [];

const tokenFile = () => `${databaseFile}.token`;
const keptToken = () => readFileSync(tokenFile(), "utf8").trim();
const start = async () => (server = await startServerProcess({ port, databaseFile, env: { PARLEY_TOKEN: undefined } }));
const cli = async (...args: string[]) =>
  (await promisify(execFile)(process.execPath, ["bin/parley.mjs", ...args, "--database", `file:${databaseFile}`], { cwd: root, env: { ...process.env, PARLEY_TOKEN: "", PARLEY_URL: "" } })).stdout;
const statusWith = async (token: string) => (await fetch(`${server!.url}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })).status;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "parley-rotate-"));
  databaseFile = path.join(dir, "rotate.db");
  port = await freePort();
  await start();
}, 90_000);

afterAll(async () => {
  for (const thing of open.splice(0)) thing.close();
  await server?.kill("SIGTERM");
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("parley token rotate", { timeout: 90_000 }, () => {
  it("only the server token may rotate it", async () => {
    const apiToken = (await cli("token", "create", "--name", "script")).split("\n")[0]!;
    const res = await fetch(`${server!.url}/api/auth/rotate-token`, { method: "POST", headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(403);
    expect(await statusWith(keptToken())).toBe(200);
  });

  it.skipIf(missing !== null)("refuses the old token at once, accepts the new one, and a connected parley chat carries on with it; a restart keeps it", async () => {
    const old = keptToken();
    const rest = restClient(server!.url, { token: old });
    const session = await rest.ok(rest.post<Session>("/api/sessions", {}));
    // No --url, no --token: the client finds the server and its token beside the database, as a person's would.
    const term = Terminal.start(["node", "bin/parley.mjs", "chat", session.id, "--database", `file:${databaseFile}`], { env: { PARLEY_TOKEN: "", PARLEY_URL: "" } });
    open.push(term);
    await term.waitFor("● connected");

    const out = await cli("token", "rotate");
    expect(out).toContain(`The new one is kept in ${tokenFile()}`);
    const fresh = keptToken();
    expect(fresh).not.toBe(old);
    expect(statSync(tokenFile()).mode & 0o777).toBe(0o600);
    expect(out).toContain(`?token=${fresh}`);
    expect(await statusWith(old)).toBe(401);
    expect(await statusWith(fresh)).toBe(200);

    // The terminal was dropped with the old token and came back with the new one: a question reaches it, and its answer goes through.
    const now = restClient(server!.url, { token: fresh });
    const run = await now.ok(now.post<Run>(`/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: "Still with us?", options: ["yes", "no"] } }));
    await term.waitFor("Still with us?", 20_000);
    await term.ready();
    await term.press("Enter");
    const done = await poll(`run ${run.id} to finish`, async () => {
      const r = await now.ok(now.get<Run>(`/api/runs/${run.id}`));
      return isFinalStatus(r.status) ? r : undefined;
    });
    expect(done).toMatchObject({ status: "succeeded", result: { value: "yes" } });
    expect(term.exited()).toBe(false);

    await server!.kill("SIGTERM");
    await start();
    expect(await statusWith(fresh)).toBe(200);
    expect(await statusWith(old)).toBe(401);
  });

  it("with no server running, rewrites the kept token for the next start", async () => {
    const before = keptToken();
    await server!.kill("SIGTERM");
    server = undefined;
    expect(await cli("token", "rotate")).toContain(`Rotated the server token kept in ${tokenFile()}`);
    const after = keptToken();
    expect(after).not.toBe(before);
    await start();
    expect(await statusWith(after)).toBe(200);
    expect(await statusWith(before)).toBe(401);
  });
});
