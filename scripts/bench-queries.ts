/**
 * Database work per step of the question loop, against the production build, from the server's
 * own counters (GET /api/metrics): statements and transactions per run start (until its card is
 * shown and the run is parked or waits), per reply to a live worker and per reply to a parked run
 * (each until the run has finished), and the server-side timings of the reply's phases. The server
 * is left quiet between steps, so follow-up work (session lists, run updates) is counted where it
 * belongs. Prints figures; asserts nothing. `--pg`: on a fresh PostgreSQL database (one node, no
 * Redis) instead of SQLite. Usage: npm run build && npx tsx scripts/bench-queries.ts [-- --samples 20 --pg]
 */
import { parseArgs } from "node:util";
import { api, fmt, machine, percentile, until, withServer, type ServerProcess } from "./bench-kit";
import { readMetrics, spent, type Metrics } from "./bench-kit-metrics";
import { openTabs, TabLog } from "./bench-kit-tabs";
import { clusterPrerequisites, startCluster } from "../tests/helpers/cluster";

const { values } = parseArgs({ options: { samples: { type: "string", default: "20" }, pg: { type: "boolean", default: false } } });
const SAMPLES = Number(values.samples);

const quiet = () => new Promise((r) => setTimeout(r, 150));

async function measure(server: ServerProcess, parked: boolean) {
  const session = await api<{ id: string }>(server, "/api/sessions", { title: "bench" });
  const tabs = await openTabs(server, session.id, 2);
  const log = new TabLog(tabs, {
    "question.asked": (q: { runId: string }) => `asked:${q.runId}`,
    "run.updated": (r: { id: string; status: string }) => `run:${r.id}:${r.status}`,
  });
  const starts: ReturnType<typeof spent>[] = [];
  const replies: ReturnType<typeof spent>[] = [];
  let last: Metrics | undefined;
  try {
    for (let i = 0; i < SAMPLES + 1; i++) {
      await quiet();
      const before = await readMetrics(server);
      const run = await api<{ id: string }>(server, `/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: `Question ${i}?`, options: ["ok"] } });
      await log.all(`asked:${run.id}`);
      if (parked) await until(async () => (await readMetrics(server)).parked > before.parked && true, 60_000, 5);
      await quiet();
      const asked = await readMetrics(server);
      const question = log.payloads.get(`asked:${run.id}`) as { id: string };
      const ack = (await tabs[0]!.emitWithAck("question.reply", { id: question.id, value: "ok" })) as { ok: boolean };
      if (!ack.ok) throw new Error(`reply refused: ${JSON.stringify(ack)}`);
      await log.all(`run:${run.id}:succeeded`, [0]);
      await quiet();
      const done = await readMetrics(server);
      last = done;
      if (i === 0) continue;
      starts.push(spent(before, asked));
      replies.push(spent(asked, done));
    }
  } finally {
    for (const t of tabs) t.disconnect();
  }
  return { starts, replies, phases: last!.phases };
}

const median = (xs: number[]) => percentile(xs, 50);
const line = (label: string, xs: ReturnType<typeof spent>[]) =>
  console.log(
    `  ${label.padEnd(52)} ${fmt(median(xs.map((x) => x.reads + x.writes)), 0).padStart(4)} statements (${fmt(median(xs.map((x) => x.reads)), 0)} reads, ${fmt(median(xs.map((x) => x.writes)), 0)} writes incl. BEGIN/COMMIT) in ${fmt(median(xs.map((x) => x.transactions)), 0)} transactions`,
  );

console.log(`\nDatabase statements per step on ${values.pg ? "PostgreSQL" : "SQLite"}, median of ${SAMPLES} (${machine()})`);
/** One server on SQLite, or with --pg one node on PostgreSQL. */
async function serve<T>(env: Record<string, string>, work: (s: ServerProcess) => Promise<T>): Promise<T> {
  if (!values.pg) return withServer(env, work);
  const cluster = await startCluster(1, { ...env, REDIS_URL: undefined });
  try {
    return await work(cluster.nodes[0]!);
  } finally {
    await cluster.close();
  }
}
if (values.pg) {
  const ready = await clusterPrerequisites();
  if (!ready.ok) {
    console.log(`bench-queries --pg: skipped: ${ready.reason}`);
    process.exit(0);
  }
}
const live = await serve({ PARLEY_PARK_AFTER_MS: "600000" }, (s) => measure(s, false));
const parked = await serve({ PARLEY_PARK_AFTER_MS: "0" }, (s) => measure(s, true));
line("run start → card shown, run waiting", live.starts);
line("run start → card shown, run parked", parked.starts);
line("reply → run finished, live worker", live.replies);
line("reply → run finished, parked run (replay)", parked.replies);
console.log(`  server-side phases (p50 / p99 over the run, ms):`);
for (const [name, m] of [...[...live.phases].map(([k, v]) => [`${k}, live`, v] as const), ...[...parked.phases].map(([k, v]) => [`${k}, parked`, v] as const)]) {
  console.log(`    ${name.padEnd(32)} ${fmt(m.p50, 2).padStart(8)} ${fmt(m.p99, 2).padStart(8)}   (${m.count})`);
}
