import { z } from "zod";
import { CrossNodeStatusSchema } from "./cluster";

export const DatabaseEngineSchema = z.enum(["sqlite", "postgresql"]);
export type DatabaseEngine = z.infer<typeof DatabaseEngineSchema>;

/** The database as `/api/health` reports it: reachable within a short timeout (`SELECT 1`), and how long that took. */
export const DatabaseHealthSchema = z.object({
  ok: z.boolean(),
  engine: DatabaseEngineSchema,
  latencyMs: z.number().nonnegative().nullable(),
});
export type DatabaseHealth = z.infer<typeof DatabaseHealthSchema>;

/** `GET /api/health` without a credential: only whether runs can run. */
export const PublicHealthSchema = z.object({ ok: z.boolean() });

/** `GET /api/health` for a signed-in caller (the fields checked by tests and the load balancer's operators). */
export const HealthSchema = PublicHealthSchema.extend({
  database: DatabaseHealthSchema,
  /** Redis: `single` without REDIS_URL, `connected`, or `lost`. */
  redis: CrossNodeStatusSchema,
  /** This node: its id (new at each start), the runs it holds leases on (null: one node, no leases), whether it keeps the expiry timers. */
  node: z.object({ id: z.string(), leasedRuns: z.number().int().nonnegative().nullable(), expiryTimers: z.boolean() }),
}).loose();
export type Health = z.infer<typeof HealthSchema>;

/** `GET /api/ready` (public, for a load balancer): 200 with `ready: true`, or 503 with `ready: false`. */
export const ReadySchema = z.strictObject({ ready: z.boolean() });
export type Ready = z.infer<typeof ReadySchema>;
