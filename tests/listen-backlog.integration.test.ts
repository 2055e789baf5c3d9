import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authHeaders, freePort, startServerProcess, type ServerProcess } from "./helpers/server-process";

// A burst of clients connecting at once (2,000 replies sent together by the cluster test) must all
// be answered: with Node's default listen backlog (511) the kernel's accept queue overflowed while
// a loaded server was slow to accept, and clients failed (ECONNRESET, connect timeouts).
const BURST = 4_000;
/** How long the server stays busy (stopped) while the burst arrives: longer than fetch's 10 s connect timeout. */
const BUSY_MS = 12_000;

/** A new chat made by a client of its own (fetch opens a connection per request in flight): the status, or how it failed. */
async function createSession(url: string): Promise<string> {
  try {
    const res = await fetch(`${url}/api/sessions`, { method: "POST", headers: { ...authHeaders(), "content-type": "application/json" }, body: "{}" });
    await res.text();
    return String(res.status);
  } catch (err) {
    return ((err as Error).cause as NodeJS.ErrnoException | undefined)?.code ?? (err as Error).message;
  }
}

describe("a burst of connections", () => {
  let server: ServerProcess;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-backlog-"));
    server = await startServerProcess({ port: await freePort(), databaseFile: path.join(dir, "p.db") });
  }, 90_000);
  afterAll(async () => {
    await server?.kill("SIGTERM");
    rmSync(dir, { recursive: true, force: true });
  });

  it(`${BURST} clients connecting to a busy server at once are all answered, none dropped`, async () => {
    // A busy server, as on a loaded machine: the kernel alone queues the connections meanwhile.
    process.kill(server.child.pid!, "SIGSTOP");
    let outcomes: string[];
    try {
      const all = Promise.all(Array.from({ length: BURST }, () => createSession(server.url)));
      await new Promise((r) => setTimeout(r, BUSY_MS));
      process.kill(server.child.pid!, "SIGCONT");
      outcomes = await all;
    } finally {
      process.kill(server.child.pid!, "SIGCONT");
    }
    const counts = new Map<string, number>();
    for (const o of outcomes) counts.set(o, (counts.get(o) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual({ "201": BURST });
  }, 120_000);
});
