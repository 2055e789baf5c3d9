import type { CrossNodeStatus } from "../protocol/cluster";
import type { DatabaseEngine, DatabaseHealth } from "../protocol/health";
import { POSTGRES_URL } from "./db/engine";

/** How long `/api/health` and `/api/ready` wait for the database before calling it down. */
export const DATABASE_CHECK_TIMEOUT_MS = 1_500;

/** The engine a DATABASE_URL names: `file:` is SQLite, `postgres(ql)://` PostgreSQL. */
export function databaseEngine(url: string | undefined = process.env.DATABASE_URL): DatabaseEngine {
  return url && POSTGRES_URL.test(url) ? "postgresql" : "sqlite";
}

/** Anything that runs a raw query (the Prisma client of either engine). */
export interface RawQuery {
  $queryRawUnsafe(query: string): Promise<unknown>;
}

/** `SELECT 1` through Prisma, given at most `timeoutMs`: a failure or a stall is `ok: false`, never a throw. */
export async function checkDatabase(
  db: RawQuery,
  { engine = databaseEngine(), timeoutMs = DATABASE_CHECK_TIMEOUT_MS, now = () => performance.now() }: { engine?: DatabaseEngine; timeoutMs?: number; now?: () => number } = {},
): Promise<DatabaseHealth> {
  const started = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([db.$queryRawUnsafe("SELECT 1").then(() => "ok" as const), timeout]);
    if (outcome === "timeout") return { ok: false, engine, latencyMs: null };
    return { ok: true, engine, latencyMs: Math.round((now() - started) * 10) / 10 };
  } catch {
    return { ok: false, engine, latencyMs: null };
  } finally {
    clearTimeout(timer);
  }
}

/** Whether a load balancer should send this node traffic: the database answers, and Redis is not lost (when configured). */
export const isReady = (database: Pick<DatabaseHealth, "ok">, crossNode: CrossNodeStatus): boolean => database.ok && crossNode !== "lost";
