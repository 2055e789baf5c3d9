import { z } from "zod";

const EnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
  HOST: z.string().min(1).default("127.0.0.1"),
  DATABASE_URL: z
    .string()
    .startsWith("file:", "DATABASE_URL must be a SQLite file: URL, e.g. file:./data/parley.db")
    .default("file:./data/parley.db"),
  /** Extra origins (comma-separated) allowed to open a socket besides the app's own. */
  PARLEY_ALLOWED_ORIGINS: z
    .string()
    .default("")
    .transform((s) => s.split(",").map((o) => o.trim()).filter(Boolean)),
  PARLEY_STOP_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
  PARLEY_IDLE_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  PARLEY_MAX_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
  PARLEY_PARK_AFTER_MS: z.coerce.number().int().min(0).max(3_600_000).default(3_000),
  /** SQLite's `synchronous`: FULL survives a power loss; NORMAL only a crash of the process, for fewer fsyncs. */
  PARLEY_DB_SYNC: z
    .string()
    .default("FULL")
    .transform((s) => s.toUpperCase())
    .pipe(z.enum(["FULL", "NORMAL"], "must be FULL or NORMAL")),
  /** Longest a database statement waits for a lock held by another process before the request fails with 503 database_busy. */
  PARLEY_DB_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
});

export type Env = z.infer<typeof EnvSchema>;

/** Parses the environment once; a bad value stops start-up with a readable message. */
export function loadEnv(source: Record<string, string | undefined> = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`).join("\n");
    throw new Error(`Invalid environment:\n${lines}`);
  }
  return parsed.data;
}
