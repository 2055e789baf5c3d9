/**
 * Runs started, asked and parked per second, against the production build: N runs of `test.ask`
 * started by C concurrent REST clients (each starts its next run when its last start request
 * answered; by default all N at once) with the server's default settings unless --park-ms sets
 * PARLEY_PARK_AFTER_MS. Prints, per run, the time from its start request to its question pending
 * (question.asked on a socket); the rate of questions asked (each durably stored before it is
 * shown) beside raw better-sqlite3 one-row commits per second with the app's `synchronous`, as a
 * ratio; and runs started, asked and parked (no run live, every question pending) per second.
 * Prints figures; asserts nothing.
 * Measured after a warm-up (--warm runs started as the measured ones are, all parked, and a page served so
 * that Next has loaded and the worker pool has the processes the load needs): a server's steady rate,
 * not its first seconds (--warm 0 measures from start).
 * Usage: npm run build && npm run bench:asking [-- --runs 200 --clients 16 --park-ms 200 --warm 1000 --limit-s 300 --session-per-run]
 */
import { parseArgs } from "node:util";
import { io } from "socket.io-client";
import { api, appSynchronous, fmt, health, machine, percentile, rawCommits, startRuns, withServer } from "./bench-kit";
import { authHeaders, TEST_TOKEN, type ServerProcess } from "../tests/helpers/server-process";

const { values } = parseArgs({
  options: {
    runs: { type: "string", default: "200" },
    clients: { type: "string" },
    "park-ms": { type: "string" },
    "limit-s": { type: "string", default: "300" },
    warm: { type: "string", default: "1000" },
    "session-per-run": { type: "boolean", default: false },
  },
});
const SESSION_PER_RUN = values["session-per-run"];
const RUNS = Number(values.runs);
const CLIENTS = Number(values.clients ?? RUNS);
const LIMIT_MS = Number(values["limit-s"]) * 1000;
const WARM = Number(values.warm);
const env: Record<string, string> = values["park-ms"] === undefined ? {} : { PARLEY_PARK_AFTER_MS: values["park-ms"] };

const settings = `${CLIENTS === RUNS ? "all at once" : `${CLIENTS} clients`}, ${values["park-ms"] === undefined ? "default settings" : `park delay ${values["park-ms"]} ms`}${SESSION_PER_RUN ? ", a new session for each run" : ""}${WARM > 0 ? `, after ${WARM} warm-up runs` : ", from start"}`;
console.log(`\n${RUNS} runs asking (${settings}; production server; ${machine()})`);
const raw = rawCommits(appSynchronous());
await withServer(env, async (server) => {
  const warmed = await warmUp(server);
  const workersBefore = (await health(server)).workers;
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const socket = io(server.url, { transports: ["websocket"], reconnection: false, auth: { token: TEST_TOKEN } });
  const askedAt = new Map<string, number>();
  socket.on("question.asked", (q: { runId: string }) => {
    if (!askedAt.has(q.runId)) askedAt.set(q.runId, performance.now());
  });
  // A chat the socket has not joined: its owner's tabs hear its pending count (polling /api/health instead cost the server it measures 0.7 ms a call).
  const pendingAt = new Map<string, number>();
  socket.on("session.updated", (s: { id: string; pendingCount: number }) => {
    if (s.pendingCount > 0 && !pendingAt.has(s.id)) pendingAt.set(s.id, performance.now());
  });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("connect_error", reject));
  const joined = (await socket.emitWithAck("session.join", { sessionId: session.id })) as { ok: boolean };
  if (!joined.ok) throw new Error(`session.join failed: ${JSON.stringify(joined)}`);

  const first = performance.now();
  const starts = await startRuns(server, SESSION_PER_RUN ? "new" : session.id, RUNS, CLIENTS, (i) => ({ prompt: `Question ${i + 1}?`, options: ["ok"] }));
  const started = starts.filter((s) => s.status === 201 && s.runId);
  const refused = starts.length - started.length;
  const deadline = first + LIMIT_MS;
  const heard = () => {
    if (SESSION_PER_RUN) for (const s of started) if (!askedAt.has(s.runId!) && pendingAt.has(s.sessionId)) askedAt.set(s.runId!, pendingAt.get(s.sessionId)!);
    return started.every((s) => askedAt.has(s.runId!));
  };
  while (!heard() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  let parkedAt: number | undefined;
  let workersAfter = 0;
  while (performance.now() < deadline) {
    const h = await health(server);
    if (h.liveRuns === 0 && h.pendingQuestions >= warmed + started.length) {
      parkedAt = performance.now();
      workersAfter = h.workers;
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const asked = started.filter((s) => askedAt.has(s.runId!));
  const perRun = asked.map((s) => askedAt.get(s.runId!)! - s.sent);
  const startReplies = starts.map((s) => s.answered - s.sent);
  socket.disconnect();

  if (asked.length < RUNS) {
    console.log(`  only ${asked.length} of ${RUNS} questions pending after ${fmt(LIMIT_MS / 1000, 0)} s (${refused} start requests refused)`);
  }
  if (asked.length === 0) return;
  const allAsked = Math.max(...asked.map((s) => askedAt.get(s.runId!)!)) - first;
  const askedPerSecond = asked.length / (allAsked / 1000);
  if (!SESSION_PER_RUN) console.log(`  start request → its question pending   p50 ${fmt(percentile(perRun, 50) / 1000, 3).padStart(7)} s   p99 ${fmt(percentile(perRun, 99) / 1000, 3).padStart(7)} s`);
  console.log(`  start request answered (201)           p50 ${fmt(percentile(startReplies, 50) / 1000, 3).padStart(7)} s   p99 ${fmt(percentile(startReplies, 99) / 1000, 3).padStart(7)} s`);
  console.log(`  all ${asked.length} questions pending after  ${fmt(allAsked / 1000, 2)} s   → ${fmt(askedPerSecond)} runs started and asked per second`);
  if (parkedAt !== undefined) {
    console.log(`  all ${asked.length} runs parked after     ${fmt((parkedAt - first) / 1000, 2)} s   → ${fmt(asked.length / ((parkedAt - first) / 1000))} runs started, asked and parked per second`);
  } else console.log(`  not every run parked within ${fmt(LIMIT_MS / 1000, 0)} s`);
  console.log(`  worker processes: ${workersBefore} after the warm-up, ${workersAfter} once all parked`);
  console.log(
    `  durable questions per second ${fmt(askedPerSecond).padStart(8)}   raw better-sqlite3 one-row commits (synchronous = ${appSynchronous()}) ${fmt(raw.perSecond, 0)}/s   → ×${fmt(askedPerSecond / raw.perSecond, 4)} the floor (1 in ${fmt(raw.perSecond / askedPerSecond, 0)})`,
  );
  if (refused) console.log(`  ${refused} start requests refused: ${[...new Set(starts.filter((s) => s.status !== 201).map((s) => s.status))].join(", ")}`);
});

/** Starts WARM runs in a chat of their own and waits until all are parked, and has Next serve a page: answers how many questions they left pending. */
async function warmUp(server: ServerProcess): Promise<number> {
  if (WARM === 0) return 0;
  await fetch(`${server.url}/`, { headers: authHeaders() }).then((r) => r.arrayBuffer());
  const session = SESSION_PER_RUN ? "new" : (await api<{ id: string }>(server, "/api/sessions", { title: "warm-up" })).id;
  const starts = await startRuns(server, session, WARM, CLIENTS, (i) => ({ prompt: `Warm-up ${i + 1}?`, options: ["ok"] }));
  const started = starts.filter((s) => s.status === 201).length;
  for (const deadline = performance.now() + LIMIT_MS; performance.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
    const h = await health(server);
    if (h.liveRuns === 0 && h.pendingQuestions >= started) return h.pendingQuestions;
  }
  throw new Error(`the ${WARM} warm-up runs did not all park within ${fmt(LIMIT_MS / 1000, 0)} s`);
}
