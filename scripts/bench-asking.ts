/**
 * "200 runs asking at once" against the production build with default settings (4 workers,
 * PARLEY_PARK_AFTER_MS=3000): starts N runs of `test.ask` together and prints how long until every
 * question is pending (per run: start request sent → question.asked seen on a socket) and runs
 * started and asked per second. Prints figures; asserts nothing.
 * Usage: npm run build && npm run bench:asking [-- --runs 200 --limit-s 300]
 */
import { parseArgs } from "node:util";
import { io } from "socket.io-client";
import { api, fmt, machine, percentile, withServer } from "./bench-kit";
import { authHeaders, TEST_TOKEN } from "../tests/helpers/server-process";

const { values } = parseArgs({ options: { runs: { type: "string", default: "200" }, "limit-s": { type: "string", default: "300" } } });
const RUNS = Number(values.runs);
const LIMIT_MS = Number(values["limit-s"]) * 1000;

console.log(`\n${RUNS} runs asking at once (production server, default settings; ${machine()})`);
await withServer({}, async (server) => {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const socket = io(server.url, { transports: ["websocket"], reconnection: false, auth: { token: TEST_TOKEN } });
  const askedAt = new Map<string, number>();
  socket.on("question.asked", (q: { runId: string }) => {
    if (!askedAt.has(q.runId)) askedAt.set(q.runId, performance.now());
  });
  await new Promise<void>((resolve, reject) => socket.once("connect", resolve).once("connect_error", reject));
  const joined = (await socket.emitWithAck("session.join", { sessionId: session.id })) as { ok: boolean };
  if (!joined.ok) throw new Error(`session.join failed: ${JSON.stringify(joined)}`);

  const first = performance.now();
  const starts = await Promise.all(
    Array.from({ length: RUNS }, async (_, i) => {
      const sent = performance.now();
      const res = await fetch(`${server.url}/api/sessions/${session.id}/runs`, {
        method: "POST",
        headers: { ...authHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ function: "test.ask", input: { prompt: `Question ${i + 1}?`, options: ["ok"] } }),
      });
      const body = (await res.json()) as { id?: string };
      return { sent, answered: performance.now(), status: res.status, runId: body.id };
    }),
  );
  const started = starts.filter((s) => s.status === 201 && s.runId);
  const refused = starts.length - started.length;
  const deadline = first + LIMIT_MS;
  while (started.some((s) => !askedAt.has(s.runId!)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const asked = started.filter((s) => askedAt.has(s.runId!));
  const perRun = asked.map((s) => askedAt.get(s.runId!)! - s.sent);
  const startReplies = starts.map((s) => s.answered - s.sent);
  socket.disconnect();

  if (asked.length < RUNS) {
    console.log(`  only ${asked.length} of ${RUNS} questions pending after ${fmt(LIMIT_MS / 1000, 0)} s (${refused} start requests refused)`);
  }
  if (asked.length === 0) return;
  const total = Math.max(...asked.map((s) => askedAt.get(s.runId!)!)) - first;
  console.log(`  start request → its question pending   p50 ${fmt(percentile(perRun, 50) / 1000, 2).padStart(7)} s   p99 ${fmt(percentile(perRun, 99) / 1000, 2).padStart(7)} s`);
  console.log(`  start request answered (201)           p50 ${fmt(percentile(startReplies, 50) / 1000, 2).padStart(7)} s   p99 ${fmt(percentile(startReplies, 99) / 1000, 2).padStart(7)} s`);
  console.log(`  all ${asked.length} questions pending after  ${fmt(total / 1000, 2)} s   → ${fmt(asked.length / (total / 1000))} runs started and asked per second`);
  if (refused) console.log(`  ${refused} start requests refused: ${[...new Set(starts.filter((s) => s.status !== 201).map((s) => s.status))].join(", ")}`);
});
