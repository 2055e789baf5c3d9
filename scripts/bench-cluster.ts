/**
 * The question loop across nodes, beside the same loop on one node, and on PostgreSQL beside
 * SQLite, all in one run. Per sample: a run of `test.ask` started over REST on the first node,
 * its card seen by 10 tabs, answered from tab 0 over the socket, then:
 *  - reply → retraction (question.replied) seen by the 9 other tabs;
 *  - reply → the function's next line (its message) in all 10 tabs;
 * with a live worker, and with the run parked before the reply (journal replay).
 * Set-ups: one node on SQLite (the embedded default); one node on PostgreSQL; two nodes on
 * PostgreSQL and Redis with the tabs split between them, tab 0 (the one that answers) on the
 * second node, so every answer crosses nodes (the parked run is replayed where the answer lands).
 * Prints p50/p99 and ratios: PostgreSQL ÷ SQLite, two nodes ÷ one node on PostgreSQL.
 * Usage: npm run build && npm run bench:cluster [-- --samples 100]   (needs PostgreSQL and redis-server)
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, fmt, health, machine, row, until, withServer, type ServerProcess } from "./bench-kit";
import { others, TabLog, type Tab } from "./bench-kit-tabs";
import { openTab } from "../tests/helpers/remote";
import { clusterPrerequisites, startCluster } from "../tests/helpers/cluster";

const { values } = parseArgs({ options: { samples: { type: "string", default: "100" } } });
const SAMPLES = Number(values.samples);
const TABS = 10;
const WARMUP = 3;

type Figures = { retraction: number[]; nextLine: number[]; card: number[] };

/** The loop with runs started on `servers[0]` and tab t on servers[(t + 1) % n]: with two nodes, tab 0 answers from the other node. */
async function loop(servers: ServerProcess[], parked: boolean): Promise<Figures> {
  const home = servers[0]!;
  const session = await api<{ id: string }>(home, "/api/sessions", { title: "bench" });
  const tabs: Tab[] = [];
  for (let t = 0; t < TABS; t++) {
    const tab = await openTab(servers[(t + 1) % servers.length]!.url);
    const joined = (await tab.emitWithAck("session.join", { sessionId: session.id })) as { ok: boolean };
    if (!joined.ok) throw new Error("session.join failed");
    tabs.push(tab);
  }
  const log = new TabLog(tabs, {
    "question.asked": (q: { runId: string }) => `asked:${q.runId}`,
    "question.replied": (q: { id: string }) => `replied:${q.id}`,
    "message.created": (m: { runId: string | null; text: string }) => (m.runId && m.text.startsWith("You answered") ? `line:${m.runId}` : undefined),
    "run.updated": (r: { id: string; status: string }) => `run:${r.id}:${r.status}`,
  });
  const f: Figures = { retraction: [], nextLine: [], card: [] };
  try {
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const started = performance.now();
      const run = await api<{ id: string }>(home, `/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: `Question ${i}?`, options: ["ok"] } });
      const card = (await log.all(`asked:${run.id}`)) - started;
      const question = log.payloads.get(`asked:${run.id}`) as { id: string };
      if (parked) await until(async () => (await health(home)).liveRuns === 0, 60_000, 5);
      const sent = performance.now();
      const ack = (await tabs[0]!.emitWithAck("question.reply", { id: question.id, value: "ok" })) as { ok: boolean };
      if (!ack.ok) throw new Error(`reply refused: ${JSON.stringify(ack)}`);
      const retraction = (await log.all(`replied:${question.id}`, others(TABS))) - sent;
      const nextLine = (await log.all(`line:${run.id}`)) - sent;
      await log.all(`run:${run.id}:succeeded`, [0]);
      await new Promise((r) => setTimeout(r, 20));
      if (i >= WARMUP) {
        f.card.push(card);
        f.retraction.push(retraction);
        f.nextLine.push(nextLine);
      }
    }
  } finally {
    for (const t of tabs) t.disconnect();
  }
  return f;
}

const LIVE = { PARLEY_PARK_AFTER_MS: "600000" };
const PARKED = { PARLEY_PARK_AFTER_MS: "0" };

async function onPostgres(nodes: number, env: Record<string, string>, parked: boolean): Promise<Figures> {
  // One node runs without Redis, as a single node would be deployed.
  const cluster = await startCluster(nodes, nodes === 1 ? { ...env, REDIS_URL: undefined } : env);
  try {
    return await loop(cluster.nodes, parked);
  } finally {
    await cluster.close();
  }
}

const ready = await clusterPrerequisites();
if (!ready.ok) {
  console.log(`bench-cluster: skipped: ${ready.reason}`);
  process.exit(0);
}

console.log(`\nThe question loop across nodes, ${SAMPLES} samples each, 10 tabs of one session (${machine()}; load average ${fmt(loadavg()[0]!)})`);
const sqlite = { live: await withServer(LIVE, (s) => loop([s], false)), parked: await withServer(PARKED, (s) => loop([s], true)) };
const pg = { live: await onPostgres(1, LIVE, false), parked: await onPostgres(1, PARKED, true) };
const two = { live: await onPostgres(2, LIVE, false), parked: await onPostgres(2, PARKED, true) };

console.log("\n PostgreSQL against SQLite, one node (ratios: PostgreSQL ÷ SQLite)");
console.log(row("SQLite: reply → retraction seen by the 9 other tabs", sqlite.live.retraction));
console.log(row("PostgreSQL: reply → retraction", pg.live.retraction, sqlite.live.retraction, "ms", "SQLite"));
console.log(row("SQLite: reply → next line in all tabs, live worker", sqlite.live.nextLine));
console.log(row("PostgreSQL: reply → next line, live worker", pg.live.nextLine, sqlite.live.nextLine, "ms", "SQLite"));
console.log(row("SQLite: reply → next line, parked run (replay)", sqlite.parked.nextLine));
console.log(row("PostgreSQL: reply → next line, parked run", pg.parked.nextLine, sqlite.parked.nextLine, "ms", "SQLite"));
console.log(row("SQLite: run start → card in all tabs", sqlite.live.card));
console.log(row("PostgreSQL: run start → card in all tabs", pg.live.card, sqlite.live.card, "ms", "SQLite"));

console.log("\n Two nodes and Redis against one node, PostgreSQL (ratios: two nodes ÷ one node); every answer is given on the other node");
console.log(row("one node: reply → retraction seen by the 9 other tabs", pg.live.retraction));
console.log(row("two nodes: reply → retraction (5 tabs on each node)", two.live.retraction, pg.live.retraction, "ms", "one node"));
console.log(row("one node: reply → next line in all tabs, live worker", pg.live.nextLine));
console.log(row("two nodes: reply → next line, live worker on the other node", two.live.nextLine, pg.live.nextLine, "ms", "one node"));
console.log(row("one node: reply → next line, parked run", pg.parked.nextLine));
console.log(row("two nodes: reply → next line, parked run (replayed where answered)", two.parked.nextLine, pg.parked.nextLine, "ms", "one node"));
console.log(row("one node: run start → card in all tabs", pg.live.card));
console.log(row("two nodes: run start → card in all tabs", two.live.card, pg.live.card, "ms", "one node"));
console.log(`  (ratios are p50 ÷ p50 / p99 ÷ p99 of the set-up named, measured in this run; load average at the end ${fmt(loadavg()[0]!)})`);
