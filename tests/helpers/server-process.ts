import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { withdrawServer } from "../../lib/server/store/db/server-file";

const root = path.resolve(import.meta.dirname, "../..");

/** The server token of test servers. */
export const TEST_TOKEN = "test-token-0123456789abcdef";

/** The header that authenticates a REST call to a test server (or to any server, given its token). */
export function authHeaders(token: string = TEST_TOKEN): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  /** Ends the server: SIGKILL takes its workers down with it, as a crash would. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Variables for the server over productionServerEnv's; a variable set to undefined is removed (e.g. PARLEY_TOKEN, so the server makes one up and prints it). */
export type ServerEnv = Record<string, string | undefined>;

/** Starts the production build (`npm run build` first) as a real process on loopback. */
export async function startServerProcess({ port, databaseFile, env = {} }: { port: number; databaseFile: string; env?: ServerEnv }): Promise<ServerProcess> {
  const entry = path.join(root, "dist/server.js");
  if (!existsSync(entry) || !existsSync(path.join(root, ".next/BUILD_ID"))) {
    throw new Error("The production build is missing: run `npm run build` first (npm test does).");
  }
  const serverEnv = productionServerEnv({ port, databaseFile, env });
  const child = spawn(process.execPath, [...benchNodeArgs(), entry], {
    cwd: root,
    env: serverEnv,
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group, so a kill reaches its workers too.
    detached: true,
  });
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  /** A server killed with SIGKILL cannot withdraw its announcement (a PostgreSQL one lies in the project's ./data): the test does. */
  const withdrawKilled = () => withdrawServer(serverEnv.DATABASE_URL!, child.pid);
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`The server exited during start-up:\n${log}`);
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`The server did not start within 60 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    output: () => log,
    async kill(signal = "SIGKILL") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(-child.pid!, signal);
      } catch {
        child.kill(signal);
      }
      await exited;
      if (signal === "SIGKILL") withdrawKilled();
    },
  };
}

/**
 * The environment of a production server for tests: loopback, its own database and workspace (beside
 * the database), test functions on, the offline script unless `env` names a model (never a key, a
 * model or a model server of the machine's: no probe of its local ports).
 */
export function productionServerEnv({ port, databaseFile, env = {} }: { port: number; databaseFile: string; env?: ServerEnv }): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = {
    ...process.env,
    PARLEY_PROVIDER: undefined,
    PARLEY_MODEL: undefined,
    OPENAI_BASE_URL: undefined,
    OPENAI_API_KEY: undefined,
    PARLEY_LOCAL_MODELS: "off",
    NODE_ENV: "production",
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: `file:${databaseFile}`,
    PARLEY_TEST_FUNCTIONS: "1",
    NEXT_TELEMETRY_DISABLED: "1",
    PARLEY_TOKEN: TEST_TOKEN,
    PARLEY_RATE_LIMITS: "off",
    PARLEY_WORKSPACE: `${databaseFile}.workspace`,
    ...env,
  };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return merged;
}

/** A free loopback port. */
export async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** Node options for the server under a benchmark (`PARLEY_BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof"` profiles it). */
function benchNodeArgs(): string[] {
  return process.env.PARLEY_BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
}
