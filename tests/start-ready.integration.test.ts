import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort, productionServerEnv } from "./helpers/server-process";
import { joinSession, openTab, restClient } from "./helpers/remote";

const root = path.resolve(import.meta.dirname, "..");

/** Spawns the production build and resolves when it prints its ready line (nothing waited for beyond it). */
function startUntilReady(port: number, databaseFile: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.join(root, "dist/server.js")], { cwd: root, env: productionServerEnv({ port, databaseFile }), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("> Parley ready on ")) resolve(child);
    });
    child.stderr.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => reject(new Error(`The server exited (${code}) before it was ready:\n${out}`)));
  });
}

/** A page, API routes (through Next and answered before it) and a socket, all at once: each one's status, or the socket's session. */
async function firstRequests(url: string) {
  const rest = restClient(url);
  const [page, health, functions, created, tab] = await Promise.all([
    fetch(`${url}/sign-in`).then(async (res) => ({ status: res.status, html: (await res.text()).includes("<html") })),
    fetch(`${url}/api/health`).then((res) => res.status),
    rest.get<Array<{ name: string }>>("/api/functions"),
    rest.post<{ id: string }>("/api/sessions", {}),
    openTab(url),
  ]);
  try {
    const joined = await joinSession(tab, created.body.id);
    return { page, health, functions: functions.status, knowsChat: functions.body.some((f) => f.name === "chat"), created: created.status, joined: joined.ok };
  } finally {
    tab.close();
  }
}

describe("requests right after the ready line", () => {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child!.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // Parts of start-up finish after the line (Next prepares in the background): what arrives first waits for them, never fails.
  it("are answered as they are once everything is up: a page, the API, a socket", async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-ready-"));
    const port = await freePort();
    child = await startUntilReady(port, path.join(dir, "p.db"));
    const url = `http://127.0.0.1:${port}`;
    const first = await firstRequests(url);
    const later = await firstRequests(url);
    expect(first).toEqual({ page: { status: 200, html: true }, health: 200, functions: 200, knowsChat: true, created: 201, joined: true });
    expect(later).toEqual(first);
  }, 60_000);
});
