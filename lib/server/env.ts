import { SlackChannelIdSchema } from "../protocol/slack";
import { z } from "zod";
import { parseProxyTrust } from "./access/client-address";
import { DEFAULT_RUNS_PER_WORKER } from "./workers/worker-pool";
import { LOG_LEVELS } from "../log/create-log";
import { commaList } from "../protocol/comma-list";
import { DEFAULT_WEBHOOK_HOSTS, parseHostPortList, parseWebhookHosts } from "./webhooks/callback-hosts";
import { WEBHOOK_SECRET_PATTERN } from "./webhooks/secret-format";
import { isVapidPrivateKey, isVapidPublicKey, isVapidSubject } from "./push/vapid-format";

/** An optional setting: unset and empty are the same. */
const optionalText = () =>
  z
    .string()
    .trim()
    .optional()
    .transform((s) => (s ? s : undefined));

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(0).max(65_535).default(3000),
    HOST: z.string().min(1).default("127.0.0.1"),
    DATABASE_URL: z
      .string()
      .regex(/^(file:|postgres(ql)?:\/\/)/i, "DATABASE_URL must be a SQLite file: URL (e.g. file:./data/parley.db) or a PostgreSQL URL (postgresql://user@host:5432/parley)")
      .default("file:./data/parley.db"),
    /** Redis for several nodes behind a load balancer (Socket.IO's Redis adapter and the cluster bus); unset: one node alone. */
    REDIS_URL: z
      .string()
      .trim()
      .optional()
      .transform((s) => (s ? s : undefined))
      .pipe(z.url({ protocol: /^rediss?$/, error: "REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379" }).optional()),
    /** Extra origins (comma-separated, e.g. https://chat.example.com behind a proxy) whose pages and Host names this server answers. */
    PARLEY_ALLOWED_ORIGINS: z
      .string()
      .default("")
      .transform(commaList)
      .pipe(z.array(z.url({ protocol: /^https?$/, error: "each origin must be an http(s) URL such as https://chat.example.com" }).transform((u) => new URL(u).origin))),
    /**
     * Which proxies in front of the server are believed about the client's address (X-Forwarded-For)
     * and scheme (X-Forwarded-Proto): a hop count, true/false, or addresses and subnets such as
     * `loopback,10.0.0.0/8`. Unset: none, and those headers are ignored.
     */
    PARLEY_TRUST_PROXY: z
      .string()
      .optional()
      .transform((s, ctx) => {
        try {
          return parseProxyTrust(s);
        } catch (err) {
          ctx.addIssue({ code: "custom", message: (err as Error).message });
          return z.NEVER;
        }
      }),
    /** The server token, fixed (scripts, CI); without it one is generated at each start and printed with the app's URL. */
    PARLEY_TOKEN: z.string().min(16, "PARLEY_TOKEN must be at least 16 characters").max(200).regex(/^\S+$/, "PARLEY_TOKEN may not contain spaces").optional(),
    /** `off`, or limits per client such as `replies=120/10,runs=60/10` (count per seconds) for replies, runs, messages, sessions, signIn, handshakes, badTokens. */
    PARLEY_RATE_LIMITS: z
      .string()
      .default("")
      .transform((s, ctx) => {
        if (s.trim() === "off") return "off" as const;
        const limits: Record<string, { points: number; seconds: number }> = {};
        for (const part of commaList(s)) {
          const m = /^(replies|runs|messages|sessions|signIn|handshakes|badTokens)=(\d+)\/(\d+)$/.exec(part);
          if (!m || Number(m[2]) < 1 || Number(m[3]) < 1) {
            ctx.addIssue({ code: "custom", message: `"${part}" is not NAME=COUNT/SECONDS with NAME one of replies, runs, messages, sessions, signIn, handshakes` });
            return z.NEVER;
          }
          limits[m[1]!] = { points: Number(m[2]), seconds: Number(m[3]) };
        }
        return limits;
      }),
    PARLEY_STOP_GRACE_MS: z.coerce.number().int().min(0).max(60_000).default(3_000),
    PARLEY_IDLE_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
    PARLEY_MAX_WORKERS: z.coerce.number().int().min(1).max(64).default(4),
    /** Runs one worker process hosts at once (agent functions mostly wait); PARLEY_MAX_WORKERS × this runs hold a worker at most. */
    PARLEY_RUNS_PER_WORKER: z.coerce.number().int().min(1).max(256).default(DEFAULT_RUNS_PER_WORKER),
    PARLEY_PARK_AFTER_MS: z.coerce.number().int().min(0).max(3_600_000).default(3_000),
    /** How often an MCP tool call waiting for a person sends a progress notification (the TypeScript SDK's request timeout is 60 s). */
    PARLEY_MCP_PROGRESS_MS: z.coerce.number().int().min(100).max(55_000).default(10_000),
    /**
     * Several nodes on one PostgreSQL database: how long a node's hold on a run it executes lasts
     * unless renewed (a dead node's runs are taken over after it). Ignored on SQLite (one node).
     */
    PARLEY_RUN_LEASE_MS: z.coerce.number().int().min(500).max(600_000).default(15_000),
    /** SQLite's `synchronous`: FULL survives a power loss; NORMAL only a crash of the process, for fewer fsyncs. */
    PARLEY_DB_SYNC: z
      .string()
      .default("FULL")
      .transform((s) => s.toUpperCase())
      .pipe(z.enum(["FULL", "NORMAL"], "must be FULL or NORMAL")),
    /** PostgreSQL: connections each node keeps in its pool. */
    PARLEY_DB_POOL: z.coerce.number().int().min(1).max(200).default(10),
    /** Longest a database statement waits for a lock held by another process before the request fails with 503 database_busy. */
    PARLEY_DB_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
    /**
     * The folder the agent's tools work in (read, write, run commands), relative to the server's
     * working directory; created at start, and a new or empty one seeded with a small sample project.
     */
    PARLEY_WORKSPACE: z.string().trim().min(1, "PARLEY_WORKSPACE may not be empty; unset it for ./workspace").default("workspace"),
    /** `off`: commands the tools run are not sandboxed, on purpose (said at start and on every card); `auto` (the default): bubblewrap when it can run here. */
    PARLEY_SANDBOX: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(["auto", "off"], "must be auto or off"))
      .optional(),
    /** bubblewrap's program when it is not `bwrap` on PATH. */
    PARLEY_BWRAP: optionalText(),
    /** How much the server logs: fatal, error, warn, info (the default), debug, trace or silent. */
    PARLEY_LOG_LEVEL: z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(LOG_LEVELS, `must be one of ${LOG_LEVELS.join(", ")}`))
      .optional(),
    /** The hosts an ask's callbackUrl may name: host names or IP addresses, comma-separated, each exactly (loopback only by default). */
    PARLEY_WEBHOOK_HOSTS: z.string().default(DEFAULT_WEBHOOK_HOSTS.join(",")).transform(parseWebhookHosts),
    /** The Standard Webhooks secret callbacks are signed with (`whsec_` and base64); unset: one is made and kept in the database (`npx parley webhook-secret`). */
    PARLEY_WEBHOOK_SECRET: z
      .string()
      .trim()
      .optional()
      .transform((s) => (s ? s : undefined))
      .pipe(z.string().regex(WEBHOOK_SECRET_PATTERN, "PARLEY_WEBHOOK_SECRET must be whsec_ followed by a base64 key of 24 bytes or more").optional()),
    /** The wait after a callback's first failed attempt, doubled at each next one (at most an hour), for a day. */
    PARLEY_WEBHOOK_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
    /** More hosts a Web Push endpoint may name besides the browsers' push services: host names or addresses, each alone (any port) or as host:port. */
    PARLEY_PUSH_HOSTS: z.string().default("").transform(parseHostPortList),
    /** The VAPID key pair pushes are signed with (base64url, as `npx web-push generate-vapid-keys` prints); unset: a pair made once and kept in the database. */
    PARLEY_VAPID_PUBLIC_KEY: optionalText().pipe(z.string().refine(isVapidPublicKey, "PARLEY_VAPID_PUBLIC_KEY must be a VAPID public key: base64url of a 65-byte P-256 point").optional()),
    PARLEY_VAPID_PRIVATE_KEY: optionalText().pipe(z.string().refine(isVapidPrivateKey, "PARLEY_VAPID_PRIVATE_KEY must be a VAPID private key: base64url of 32 bytes").optional()),
    /** Who runs this server, for the push services: a mailto: address or an https: URL. */
    PARLEY_VAPID_SUBJECT: optionalText().pipe(z.string().refine(isVapidSubject, "PARLEY_VAPID_SUBJECT must be a mailto: address (mailto:you@example.com) or an https: URL").optional()),
    /** The wait after a push's first failed attempt, doubled at each next one (at most an hour), for a day. */
    PARLEY_PUSH_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
    /** Slack (docs/slack.md): the bot token (xoxb-…) and the app's signing secret; both, or neither (no Slack). */
    PARLEY_SLACK_BOT_TOKEN: optionalText().pipe(
      z
        .string()
        .regex(/^xox[a-z]-[A-Za-z0-9-]+$/, "PARLEY_SLACK_BOT_TOKEN must be a Slack bot token (xoxb-…)")
        .optional(),
    ),
    PARLEY_SLACK_SIGNING_SECRET: optionalText().pipe(
      z
        .string()
        .regex(/^[0-9a-f]{16,128}$/i, "PARLEY_SLACK_SIGNING_SECRET must be the app's signing secret (hex, from Basic Information)")
        .optional(),
    ),
    /** Where questions of chats with no Slack channel of their own go (a channel id, C… or G…); unset: the DMs of the linked people who may answer. */
    PARLEY_SLACK_CHANNEL: optionalText().pipe(SlackChannelIdSchema.optional()),
    /** Slack's Web API (tests and proxies point it elsewhere). */
    PARLEY_SLACK_API_URL: z
      .string()
      .trim()
      .default("https://slack.com/api/")
      .pipe(z.url({ protocol: /^https?$/, error: "PARLEY_SLACK_API_URL must be an http(s): URL" })),
    PARLEY_SLACK_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(5_000),
    /** Email (docs/email.md): the mail server, smtp://user:pass@host:587 (STARTTLS when offered) or smtps://…:465; unset: no email. */
    PARLEY_SMTP_URL: optionalText().pipe(z.url({ protocol: /^smtps?$/, error: "PARLEY_SMTP_URL must be smtp://user:pass@host:587 or smtps://user:pass@host:465" }).optional()),
    /** Who the mails are from: "Parley <parley@example.com>". */
    PARLEY_EMAIL_FROM: optionalText(),
    PARLEY_EMAIL_RETRY_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
    /** Where people reach this server (https://parley.example.com): the links in Slack messages and emails point there. */
    PARLEY_PUBLIC_URL: optionalText().pipe(z.url({ protocol: /^https?$/, error: "PARLEY_PUBLIC_URL must be an http(s): URL" }).optional()),
    /** The project's default permission rules; `parley.permissions.json` in the project root when unset (no file: no rules). */
    PARLEY_PERMISSIONS_FILE: z.string().trim().min(1, "PARLEY_PERMISSIONS_FILE may not be empty; unset it for parley.permissions.json").optional(),
    /** A JSON file of the MCP servers the built-in agent uses (lib/protocol/mcp-servers.ts); unset: none. */
    PARLEY_MCP_SERVERS: z.string().trim().min(1, "PARLEY_MCP_SERVERS may not be empty; unset it for no MCP servers").optional(),
  })
  .superRefine((env, ctx) => {
    if (env.PARLEY_SMTP_URL) {
      for (const needed of ["PARLEY_EMAIL_FROM", "PARLEY_PUBLIC_URL"] as const) {
        if (!env[needed]) ctx.addIssue({ code: "custom", path: [needed], message: `email (PARLEY_SMTP_URL) needs ${needed} too (docs/email.md)` });
      }
    }
    if (Boolean(env.PARLEY_SLACK_BOT_TOKEN) !== Boolean(env.PARLEY_SLACK_SIGNING_SECRET)) {
      const missing = env.PARLEY_SLACK_BOT_TOKEN ? "PARLEY_SLACK_SIGNING_SECRET" : "PARLEY_SLACK_BOT_TOKEN";
      ctx.addIssue({ code: "custom", path: [missing], message: "Slack needs both PARLEY_SLACK_BOT_TOKEN and PARLEY_SLACK_SIGNING_SECRET (docs/slack.md), or neither" });
    }
    if (Boolean(env.PARLEY_VAPID_PUBLIC_KEY) !== Boolean(env.PARLEY_VAPID_PRIVATE_KEY)) {
      const missing = env.PARLEY_VAPID_PUBLIC_KEY ? "PARLEY_VAPID_PRIVATE_KEY" : "PARLEY_VAPID_PUBLIC_KEY";
      ctx.addIssue({ code: "custom", path: [missing], message: "set both PARLEY_VAPID_PUBLIC_KEY and PARLEY_VAPID_PRIVATE_KEY (one key pair), or neither" });
    }
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
