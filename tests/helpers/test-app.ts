import { execSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { io as connect, type Socket } from "socket.io-client";
import { openParley, type OpenedParley } from "../../lib/server/app";
import type { Synchronous } from "../../lib/server/store/db/client";
import type { WorkerPoolOptions } from "../../lib/server/workers/worker-pool";
import { describeCatalogue, loadFunctionFiles } from "../../workers/function-catalogue";
import { attachRealtime } from "../../lib/server/realtime/socket-server";
import { createRedisBus } from "../../lib/server/realtime/redis-bus";
import { createOriginPolicy } from "../../lib/server/access/origin-policy";
import type { ClientToServerEvents, ServerToClientEvents } from "../../lib/protocol/socket";
import { openFixtureDb } from "./fixture-db";
import { TEST_TOKEN } from "./server-process";

export { authHeaders, TEST_TOKEN } from "./server-process";

export type TestClient = Socket<ServerToClientEvents, ClientToServerEvents>;

const root = path.resolve(import.meta.dirname, "../..");

export interface TestAppOptions {
  stopGraceMs?: number;
  parkAfterMs?: number;
  maxWorkers?: number;
  /** SQLite's `synchronous`, FULL as in production unless a test says otherwise. */
  dbSync?: Synchronous;
  /** Reuse the database folder of an earlier app (a restart). */
  dir?: string;
  /** Another worker entry (a fixture); TypeScript runs through tsx. */
  workerScript?: string;
  /** More worker pool options (start retries, backoff, cool-down, env). */
  workerOptions?: Partial<WorkerPoolOptions>;
  /** Socket.IO's Redis adapter and the cluster bus (a unique `key` keeps parallel tests apart). */
  redis?: { url: string; key?: string };
  /** How often sockets are checked against revocations nobody told the node about (200 ms unless a test says otherwise). */
  revocationCheckMs?: number;
}

/** A real Parley (SQLite in a temp folder, real worker processes) on an ephemeral loopback port, without Next. */
export async function startTestApp({
  stopGraceMs = 1_000,
  parkAfterMs = 60_000,
  maxWorkers = 4,
  dbSync = "FULL",
  dir: reuse,
  workerScript = path.join(root, "workers/agent-worker.ts"),
  workerOptions,
  redis,
  revocationCheckMs = 200,
}: TestAppOptions = {}) {
  const dir = reuse ?? mkdtempSync(path.join(tmpdir(), "parley-test-"));
  const databaseUrl = `file:${path.join(dir, "test.db")}`;
  const standard = workerScript === path.join(root, "workers/agent-worker.ts");
  const parley: OpenedParley = await openParley({
    // The real worker says what it loaded; a stand-in worker (a fixture) may never be ready, so the list is read here.
    functions: standard ? undefined : describeCatalogue(await loadFunctionFiles([path.join(root, "workers/functions"), path.join(root, "workers/test-functions")], { root })),
    databaseUrl,
    database: { synchronous: dbSync },
    migrationsDir: path.join(root, "prisma/migrations"),
    worker: { script: workerScript, execArgv: workerScript.endsWith(".ts") ? ["--import", "tsx"] : [], maxIdle: 1, maxWorkers, ...workerOptions },
    stopGraceMs,
    parkAfterMs,
    inboxPollMs: 200,
    access: { token: TEST_TOKEN, rateLimits: "off" },
  });
  const httpServer = createServer();
  let port = 0;
  const realtime = attachRealtime(httpServer, parley, {
    origins: createOriginPolicy({ host: "127.0.0.1", port: () => port }),
    revocationCheckMs,
    ...(redis && { bus: createRedisBus(redis) }),
  });
  await new Promise<void>((resolve) => httpServer.listen(0, "127.0.0.1", resolve));
  port = (httpServer.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const clients: TestClient[] = [];

  const fixture = await openFixtureDb(databaseUrl);

  return {
    parley,
    /** A Prisma client on the app's database, for a test's own rows and assertions. */
    fixture,
    /** The app's Socket.IO server, for what a test checks on the server's side (the sockets it holds). */
    realtime,
    url,
    dir,
    /** A socket client, connected, like a browser tab on this origin. */
    async client(options: { origin?: string; token?: string | null } = {}): Promise<TestClient> {
      const token = options.token === undefined ? TEST_TOKEN : options.token;
      const socket: TestClient = connect(url, {
        transports: ["websocket"],
        reconnection: false,
        auth: token === null ? {} : { token },
        extraHeaders: options.origin ? { origin: options.origin } : undefined,
      });
      clients.push(socket);
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      return socket;
    },
    /** Stops the app; `keepData` leaves the database for a restart. */
    async close({ keepData = false }: { keepData?: boolean } = {}) {
      for (const c of clients) c.disconnect();
      await realtime.close();
      await parley.close();
      await fixture.$disconnect();
      if (!keepData) rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type TestApp = Awaited<ReturnType<typeof startTestApp>>;

/** Resolves with the next `event` on a socket, or fails after `ms`. */
export function nextEvent<E extends keyof ServerToClientEvents>(socket: TestClient, event: E, ms = 10_000): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${ms} ms`)), ms);
    socket.once(
      event as never,
      ((payload: unknown) => {
        clearTimeout(timer);
        resolve(payload as never);
      }) as never,
    );
  });
}

/** Polls until `check` returns a value other than undefined/false. */
export async function waitFor<T>(check: () => Promise<T | undefined | false> | T | undefined | false, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error("waitFor timed out");
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The agent worker processes this test process forked. */
export function workerPids(): number[] {
  const out = execSync(`ps -o pid=,args= --ppid ${process.pid}`).toString();
  return out
    .split("\n")
    .filter((line) => line.includes("agent-worker"))
    .map((line) => Number(line.trim().split(/\s+/)[0]));
}
