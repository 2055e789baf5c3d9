import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createPgDatabase, pgReachable, type TestDatabase } from "./test-db";
import { freePort, startServerProcess, type ServerEnv, type ServerProcess } from "./server-process";

/** The PostgreSQL server the multi-node suites make their databases on. */
export const CLUSTER_PG_URL = process.env.PARLEY_TEST_PG_URL || "postgresql://postgres@127.0.0.1:5432/test";

/** Whether several nodes can be tried here: a PostgreSQL server answers and `redis-server` is installed; else why not. */
export async function clusterPrerequisites(): Promise<{ ok: true } | { ok: false; reason: string }> {
  const pg = await pgReachable(CLUSTER_PG_URL);
  if (!pg.ok) return { ok: false, reason: `PostgreSQL at ${CLUSTER_PG_URL.replace(/\/\/[^@]*@/, "//")} is not reachable (${pg.reason})` };
  if (spawnSync("redis-server", ["--version"]).status !== 0) return { ok: false, reason: "redis-server is not installed" };
  return { ok: true };
}

/** A Redis server of the test's own on a free port (nothing on disk), which a test may stop and start again on the same port. */
export async function startRedis(): Promise<{ url: string; stop(): Promise<void>; start(): Promise<void> }> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  async function start() {
    child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmpdir()], { stdio: "ignore" });
    const until = Date.now() + 10_000;
    while (!(await answers(port))) {
      if (Date.now() > until) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  async function stop() {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null) return;
    const exited = new Promise((r) => c.once("exit", r));
    c.kill("SIGKILL");
    await exited;
  }
  await start();
  return { url: `redis://127.0.0.1:${port}`, stop, start };
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (d) => (socket.destroy(), resolve(d.toString().startsWith("+PONG"))));
    socket.once("error", () => resolve(false));
  });
}

export interface Cluster {
  db: TestDatabase;
  redis: Awaited<ReturnType<typeof startRedis>>;
  nodes: ServerProcess[];
  /** Starts one more node on the same database and Redis. */
  addNode(env?: ServerEnv): Promise<ServerProcess>;
  close(): Promise<void>;
}

/** `n` production nodes (`npm run build` first) on a fresh PostgreSQL database and a Redis of their own. */
export async function startCluster(n: number, env: ServerEnv = {}): Promise<Cluster> {
  const db = await createPgDatabase(CLUSTER_PG_URL, "parley_cluster");
  const redis = await startRedis();
  const nodes: ServerProcess[] = [];
  const addNode = async (more: ServerEnv = {}) => {
    const node = await startServerProcess({
      port: await freePort(),
      // Unused on PostgreSQL; the file a SQLite node would have.
      databaseFile: path.join(tmpdir(), "unused.db"),
      env: { DATABASE_URL: db.url, REDIS_URL: redis.url, ...env, ...more },
    });
    nodes.push(node);
    return node;
  };
  for (let i = 0; i < n; i++) await addNode();
  return {
    db,
    redis,
    nodes,
    addNode,
    async close() {
      await Promise.all(nodes.map((node) => node.kill("SIGTERM").catch(() => {})));
      await redis.stop();
      await db.drop();
    },
  };
}
