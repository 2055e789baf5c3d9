import type { CrossNodeStatus } from "../protocol/cluster";
import type { DatabaseHealth } from "../protocol/health";
import type { SqlExecutor } from "./store/sql-executor";
import { pingDatabase } from "./store/health-store";

/** How long `/api/health` and `/api/ready` wait for the database before calling it down. */
export const DATABASE_CHECK_TIMEOUT_MS = 1_500;

/** `SELECT 1` on the store's executor, given at most `timeoutMs`: a failure or a stall is `ok: false`, never a throw. */
export async function checkDatabase(
  { engine, rows }: Pick<SqlExecutor, "engine" | "rows">,
  { timeoutMs = DATABASE_CHECK_TIMEOUT_MS, now = () => performance.now() }: { timeoutMs?: number; now?: () => number } = {},
): Promise<DatabaseHealth> {
  const started = now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
  });
  try {
    const outcome = await Promise.race([pingDatabase({ rows }).then(() => "ok" as const), timeout]);
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
