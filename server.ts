/**
 * Parley's entry: one HTTP server carrying Next.js (pages and /api routes) and Socket.IO,
 * with the domain services built once and shared with route handlers through globalThis.
 */
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { bindRefusal } from "./lib/server/access/origin-policy";
import { loadEnv } from "./lib/server/env";
import { trackConnections } from "./lib/server/http/open-connections";
import { keepConnectionsAlive } from "./lib/server/http/keep-alive";
import { describeModel, modelAtStart, modelEnv, modelInfo } from "./workers/agent/model-settings";
import { announceServer, localUrl, tokenFilePath, withdrawServer } from "./lib/server/store/db/server-file";
import { keptServerToken } from "./lib/server/access/kept-token";
import { setModelInfo, setParley } from "./lib/server/registry";
import { describeFunctions } from "./lib/server/workers/function-report";
import { reloadWorkersOnChange } from "./lib/server/workers/dev-reload";
import { WorkerPool } from "./lib/server/workers/worker-pool";
import { connectRedisBus } from "./lib/server/realtime/connect-redis-bus";
import { loadMcpServers } from "./workers/agent/mcp/servers-file";
import { prepareWorkspace } from "./lib/server/workspace/prepare-workspace";
import { sandboxMode, sandboxStartupLine } from "./lib/sandbox/sandbox-mode";
import { commandLimitsLine, probeCommandLimits } from "./workers/tools/command-limits";
import { systemProgram } from "./workers/tools/sandbox-command";
import { signInOrigin, startUrl } from "./lib/server/people/sign-in-origin";
import { configureLog, hideInLogs, log } from "./lib/server/log";
import { startIdleCollection } from "./lib/memory/idle-collection";
import { servedAs } from "./lib/server/http/request-principal";

/**
 * The heavy modules (Next.js, the domain and its database clients, Socket.IO), loaded while the
 * first worker starts: static imports would load them all before it is forked.
 */
const loadHeavy = () =>
  Promise.all([
    import("next"),
    import("./lib/server/app"),
    import("./lib/server/access/origin-policy"),
    import("./lib/server/http/gate"),
    import("./lib/server/realtime/socket-server"),
    import("./workers/tools"),
    import("./workers/tools/edited-call"),
    import("./lib/server/http/direct-routes"),
    import("./app/api/direct-routes"),
  ]);

/** Connections the kernel queues before the server accepts them (see the listen below). */
const LISTEN_BACKLOG = 4096;

const here = path.dirname(fileURLToPath(import.meta.url));
// Compiled to dist/server.js in production; run from the project root through tsx in development.
const root = existsSync(path.join(here, "package.json")) ? here : path.resolve(here, "..");
process.chdir(root);
if (existsSync(".env")) process.loadEnvFile(".env");

// The compiled server is the production build unless told otherwise.
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
(process.env as Record<string, string | undefined>).NODE_ENV ??= here === root ? "development" : "production";
const env = loadEnv();
const dev = env.NODE_ENV !== "production";
const nodeId = randomUUID();
configureLog(nodeId);

/** What the person who started the server reads (its log is apart, on stderr): plain lines, in production too. */
const say = (line: string) => void process.stdout.write(`${line}\n`);

/** The worker entry: compiled beside this file in production, TypeScript through tsx otherwise. */
function workerEntry() {
  const compiled = path.join(here, "agent-worker.js");
  if (existsSync(compiled) && here !== root) return { script: compiled, execArgv: [] as string[] };
  return { script: path.join(root, "workers/agent-worker.ts"), execArgv: ["--import", "tsx"] };
}

/** Without PARLEY_TOKEN: the token this database's server made before (cookies are tied to it), or a new one. */
const tokenFile = env.PARLEY_TOKEN ? null : tokenFilePath(env.DATABASE_URL);
const keptToken = () => (tokenFile ? keptServerToken(tokenFile) : undefined);

/** How long a response in progress may take to finish at shutdown, and when the process exits regardless. */
const CONNECTION_GRACE_MS = 500;
const FORCE_EXIT_MS = 4_000;

async function main() {
  const started = Date.now();
  const refusal = bindRefusal(env.HOST, env.PARLEY_TOKEN);
  if (refusal) throw new Error(refusal);
  const workspace = prepareWorkspace(env.PARLEY_WORKSPACE);
  // Checked here so a bad file stops start-up; each worker reads it again (by its absolute path) when its agent first needs it.
  const mcpServersFile = env.PARLEY_MCP_SERVERS ? path.resolve(env.PARLEY_MCP_SERVERS) : undefined;
  const mcpServers = Object.keys(loadMcpServers(mcpServersFile));
  if (mcpServers.length > 0) say(`> MCP servers for the agent (${mcpServersFile}): ${mcpServers.join(", ")}`);
  if (workspace.seeded.length > 0) say(`> The workspace ${workspace.path} was empty: seeded it with a sample project (${workspace.seeded.length} files)`);
  // Found once, before the first worker starts (at most the probe's 300 ms, and only with no model configured): every worker gets it in its environment.
  const model = await modelAtStart(process.env);
  setModelInfo(modelInfo(model));
  let port = env.PORT;
  // The first worker starts now (its catalogue comes with it): it loads its modules while this process loads its own.
  const pool = new WorkerPool({
    ...workerEntry(),
    // The workers' tools work in the workspace: its real path reaches them in their environment.
    env: { ...process.env, ...modelEnv(model), PARLEY_WORKSPACE: workspace.path, ...(mcpServersFile ? { PARLEY_MCP_SERVERS: mcpServersFile } : {}) },
    maxIdle: env.PARLEY_IDLE_WORKERS,
    maxWorkers: env.PARLEY_MAX_WORKERS,
    runsPerWorker: env.PARLEY_RUNS_PER_WORKER,
  });
  void pool.catalogueReady();
  const [
    { default: next },
    { openParley },
    { createOriginPolicy },
    { answerClientError, createGate },
    { attachRealtime },
    { toolCatalogue },
    { readEditedCall },
    { createDirectRoutes },
    { DIRECT_ROUTES },
  ] = await loadHeavy();
  const parley = await openParley({
    tools: toolCatalogue,
    editedCalls: readEditedCall,
    permissionsFile: env.PARLEY_PERMISSIONS_FILE,
    databaseUrl: env.DATABASE_URL,
    database: { synchronous: env.PARLEY_DB_SYNC, busyTimeoutMs: env.PARLEY_DB_BUSY_TIMEOUT_MS, poolSize: env.PARLEY_DB_POOL },
    migrationsDir: path.join(root, "prisma/migrations"),
    worker: pool,
    stopGraceMs: env.PARLEY_STOP_GRACE_MS,
    parkAfterMs: env.PARLEY_PARK_AFTER_MS,
    mcpProgressMs: env.PARLEY_MCP_PROGRESS_MS,
    runLeaseMs: env.PARLEY_RUN_LEASE_MS,
    webhooks: { hosts: env.PARLEY_WEBHOOK_HOSTS, secret: env.PARLEY_WEBHOOK_SECRET, retryMs: env.PARLEY_WEBHOOK_RETRY_MS },
    push: {
      hosts: env.PARLEY_PUSH_HOSTS,
      retryMs: env.PARLEY_PUSH_RETRY_MS,
      vapid: { publicKey: env.PARLEY_VAPID_PUBLIC_KEY, privateKey: env.PARLEY_VAPID_PRIVATE_KEY, subject: env.PARLEY_VAPID_SUBJECT },
    },
    slack:
      env.PARLEY_SLACK_BOT_TOKEN && env.PARLEY_SLACK_SIGNING_SECRET
        ? {
            botToken: env.PARLEY_SLACK_BOT_TOKEN,
            signingSecret: env.PARLEY_SLACK_SIGNING_SECRET,
            channel: env.PARLEY_SLACK_CHANNEL,
            apiUrl: env.PARLEY_SLACK_API_URL,
            retryMs: env.PARLEY_SLACK_RETRY_MS,
            publicUrl: env.PARLEY_PUBLIC_URL,
          }
        : undefined,
    email:
      env.PARLEY_SMTP_URL && env.PARLEY_EMAIL_FROM && env.PARLEY_PUBLIC_URL
        ? { smtpUrl: env.PARLEY_SMTP_URL, from: env.PARLEY_EMAIL_FROM, publicUrl: env.PARLEY_PUBLIC_URL, retryMs: env.PARLEY_EMAIL_RETRY_MS }
        : undefined,
    access: { token: env.PARLEY_TOKEN ?? keptToken(), tokenFile: tokenFile ?? undefined, rateLimits: env.PARLEY_RATE_LIMITS, trustProxy: env.PARLEY_TRUST_PROXY },
    log: say,
    nodeId,
    // Known once the server listens (PORT 0 picks a port); no request comes before.
    origin: () => signInOrigin({ allowedOrigins: env.PARLEY_ALLOWED_ORIGINS, host: env.HOST, port }),
  });
  setParley(parley);
  hideInLogs(() => parley.access.serverToken);
  for (const line of describeFunctions(pool.catalogue)) say(line);
  pool.on("catalogue", (catalogue) => {
    for (const line of describeFunctions(catalogue)) say(line);
  });
  // Development: a saved function reloads the workers, not the server (tsx watch restarts it for its own files).
  const devReload = dev
    ? reloadWorkersOnChange([path.join(root, "workers")], (files) => {
        say(`> ${files.map((f) => path.relative(root, f)).join(", ")} changed: reloading the workers (new runs use the new code)`);
        pool.reload();
      })
    : null;
  const { resumed, parked, questions, inbox } = parley.recovered;
  if (resumed + parked + inbox > 0) {
    say(`> Picked up from the previous server: ${resumed} run(s) resumed, ${parked} parked with ${questions} pending question(s), ${inbox} queued command(s) applied`);
  }

  const httpServer = createServer();
  keepConnectionsAlive(httpServer);
  const connections = trackConnections(httpServer);
  httpServer.on("clientError", answerClientError);
  const app = next({ dev, dir: root, hostname: env.HOST, port: env.PORT, httpServer });
  // Production: Next prepares while the server already listens; a request that reaches it before then waits.
  const prepared = app.prepare();
  if (dev) await prepared;
  else prepared.catch((err: unknown) => fail(err));
  const handle = app.getRequestHandler();
  const origins = createOriginPolicy({ host: env.HOST, port: () => port, allowedOrigins: env.PARLEY_ALLOWED_ORIGINS });
  const gate = createGate({ access: parley.access, origins, dev });
  // The question loop's routes skip Next's pipeline (and need not wait for it to prepare).
  const direct = createDirectRoutes(DIRECT_ROUTES);
  httpServer.on("request", (req, res) => {
    void gate(req, res).then(async (gated) => {
      if (gated.answered || (await direct(req, res, gated.principal))) return;
      await prepared;
      // Next's routes and pages read who they serve from the request's async context
      // (request-principal.ts), never from a header; the direct routes were handed it above.
      return servedAs(gated.principal, () => handle(req, res));
    });
  });
  // Attach Next's upgrade handler (hot reload) now, not on its first request: a reconnecting
  // socket can arrive first. It leaves /socket.io upgrades alone.
  if (dev) (app as unknown as { setupWebSocketHandler(server: typeof httpServer): void }).setupWebSocketHandler(httpServer);

  const bus = env.REDIS_URL ? await connectRedisBus({ url: env.REDIS_URL }) : undefined;
  const realtime = attachRealtime(httpServer, parley, { origins, bus });

  await new Promise<void>((resolve, reject) => {
    httpServer.once("error", reject);
    // Node's default backlog (511) overflows when a few thousand clients connect at once (the kernel
    // then resets them); the kernel caps it at net.core.somaxconn.
    httpServer.listen({ port: env.PORT, host: env.HOST, backlog: LISTEN_BACKLOG }, resolve);
  });
  const address = httpServer.address();
  port = typeof address === "object" && address ? address.port : env.PORT;
  const appUrl = startUrl(env.HOST, port);
  say(`> Parley ready on ${appUrl} (${dev ? "development" : "production"}, ${Date.now() - started} ms)`);
  say(`> ${describeModel(model)}`);
  say(`> The agent's tools work in ${workspace.path} (PARLEY_WORKSPACE); ${sandboxStartupLine(sandboxMode())}`);
  say(`> Limits: ${commandLimitsLine(probeCommandLimits(systemProgram("prlimit")))}`);
  // Jupyter-style: the token in the URL signs the browser in (it becomes a session cookie and leaves the address bar).
  if (!env.PARLEY_TOKEN) say(`> Open ${appUrl}/?token=${parley.access.serverToken}\n  (a token made for this database${tokenFile ? `, kept in ${tokenFile}` : ""}; set PARLEY_TOKEN to choose one)`);
  else say(`> Sign in with PARLEY_TOKEN: open ${appUrl}/?token=<PARLEY_TOKEN>, or send Authorization: Bearer <PARLEY_TOKEN>`);
  // The CLI finds this server beside the database and sends its commands here instead of writing the database.
  const announce = () => announceServer(env.DATABASE_URL, localUrl(env.HOST, port), parley.access.serverToken);
  announce();
  parley.events.on("server-token.rotated", () => {
    announce();
    say(`> The server token was rotated: open ${appUrl}/?token=${parley.access.serverToken}`);
  });
  process.once("exit", () => withdrawServer(env.DATABASE_URL));
  // A burst of runs leaves garbage that V8 keeps until its next full collection: collected once the server is quiet.
  startIdleCollection();

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // First: a CLI must not find a server that is going away, and a forced exit leaves no file behind.
    withdrawServer(env.DATABASE_URL);
    devReload?.close();
    say(`> ${signal}: shutting down`);
    const force = setTimeout(() => process.exit(1), FORCE_EXIT_MS);
    force.unref();
    // parley.close() first lets go of live runs synchronously, before any worker exit is seen.
    const closingParley = parley.close().catch(() => {});
    const closingRealtime = realtime.close().catch(() => {});
    // Open tabs and keep-alive clients would hold the HTTP server open until the forced exit.
    await connections.endAll(CONNECTION_GRACE_MS);
    await closingRealtime;
    await closingParley;
    setParley(undefined);
    process.exit(0);
  };
  process.on("SIGINT", () => void shutdown("SIGINT"));
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
}

// A stray rejection is a bug to log, not a reason to drop every open session.
process.on("unhandledRejection", (err) => log.error({ err }, "[server] unhandled rejection"));

// Why it did not start is for the person who started it: a plain line.
function fail(err: unknown): never {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
main().catch(fail);
