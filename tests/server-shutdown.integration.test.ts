import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request as httpRequest, Agent } from "node:http";
import { connect as tcpConnect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { io as connect } from "socket.io-client";
import { afterEach, describe, expect, it } from "vitest";
import { serverFilePath } from "../lib/server/store/db/server-file";
import { freePort, startServerProcess, TEST_TOKEN, type ServerProcess } from "./helpers/server-process";

let server: ServerProcess | undefined;
let dir: string | undefined;
afterEach(async () => {
  await server?.kill();
  server = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A keep-alive client's connection, left open after its response. */
async function keepAliveConnection(url: string, agent: Agent): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const req = httpRequest(`${url}/api/health`, { agent }, (res) => {
      res.resume();
      res.once("end", resolve);
    });
    req.once("error", reject);
    req.end();
  });
}

describe("the real server process at Ctrl-C", () => {
  it("with a tab's socket, a keep-alive connection and a request still arriving, exits on its own before the forced exit, and withdraws its announcement first", { timeout: 120_000 }, async () => {
    dir = mkdtempSync(path.join(tmpdir(), "parley-shutdown-"));
    const databaseFile = path.join(dir, "shutdown.db");
    const announcement = serverFilePath(`file:${databaseFile}`)!;
    server = await startServerProcess({ port: await freePort(), databaseFile });
    expect(server.output()).toMatch(/^> Model: scripted \(offline/m);
    expect(existsSync(announcement)).toBe(true);

    const tab = connect(server.url, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token: TEST_TOKEN } });
    await new Promise<void>((resolve, reject) => {
      tab.once("connect", () => resolve());
      tab.once("connect_error", reject);
    });
    const agent = new Agent({ keepAlive: true });
    await keepAliveConnection(server.url, agent);
    // A request whose headers never finish: the HTTP server counts it as busy, not idle.
    const slow = tcpConnect(Number(new URL(server.url).port), "127.0.0.1");
    await new Promise<void>((resolve) => slow.once("connect", () => resolve()));
    slow.write("GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n");
    slow.on("error", () => {});

    const exit = new Promise<number | null>((resolve) => server!.child.once("exit", (code) => resolve(code)));
    const started = Date.now();
    process.kill(-server.child.pid!, "SIGINT");
    const code = await exit;
    const took = Date.now() - started;
    tab.disconnect();
    agent.destroy();
    slow.destroy();

    expect(server.output()).toContain("> SIGINT: shutting down");
    // Exit code 0: it ended on its own. Waiting for the tab, the keep-alive connection or the request
    // (their timeouts a minute and more) would have met the server's forced exit (4 s), which exits 1.
    expect(code, `exit code ${code} after ${took} ms`).toBe(0);
    expect(existsSync(announcement)).toBe(false);
  });
});
