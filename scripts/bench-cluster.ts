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
 * Prints p50/p99 and ratios: PostgreSQL ÷ SQLite, two nodes ÷ one node on PostgreSQL, and each
 * set-up's against the floor (bench-kit-floor: a bare relay claiming in SQLite) sampled between its own.
 * Usage: npm run build && npm run bench:cluster [-- --samples 100]   (needs PostgreSQL and redis-server)
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, fmt, machine, row, withServer, type ServerProcess } from "./bench-kit";
import { sampleQuestionLoops, type LoopFigures, type Tab } from "./bench-kit-tabs";
import { openTab } from "../tests/helpers/remote";
import { clusterPrerequisites, startCluster } from "../tests/helpers/cluster";

const { values } = parseArgs({ options: { samples: { type: "string", default: "100" } } });
const SAMPLES = Number(values.samples);
const TABS = 10;
const WARMUP = 3;

/** The loop with runs started on `servers[0]` and tab t on servers[(t + 1) % n]: with two nodes, tab 0 answers from the other node. */
async function loop(servers: ServerProcess[], parked: boolean): Promise<LoopFigures> {
  const home = servers[0]!;
  const session = await api<{ id: string }>(home, "/api/sessions", { title: "bench" });
  const tabs: Tab[] = [];
  for (let t = 0; t < TABS; t++) {
    const tab = await openTab(servers[(t + 1) % servers.length]!.url);
    const joined = (await tab.emitWithAck("session.join", { sessionId: session.id })) as { ok: boolean };
    if (!joined.ok) throw new Error("session.join failed");
    tabs.push(tab);
  }
  return sampleQuestionLoops({ samples: SAMPLES, warmup: WARMUP, home, sessionId: session.id, tabs, parked });
}

const LIVE = { PARLEY_PARK_AFTER_MS: "600000" };
const PARKED = { PARLEY_PARK_AFTER_MS: "0" };

async function onPostgres(nodes: number, env: Record<string, string>, parked: boolean): Promise<LoopFigures> {
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

/** Rows of `figures` beside `base`'s, each named by a set-up. */
function compare(title: string, [baseName, base]: [string, typeof sqlite], [name, figures]: [string, typeof sqlite], notes: Record<string, string> = {}) {
  console.log(`\n ${title}`);
  const rows: Array<[string, (f: typeof sqlite) => number[]]> = [
    ["reply → retraction seen by the 9 other tabs", (f) => f.live.retraction],
    ["reply → next line in all tabs, live worker", (f) => f.live.nextLine],
    ["reply → next line, parked run (replay)", (f) => f.parked.nextLine],
    ["run start → card in all tabs", (f) => f.live.card],
  ];
  for (const [label, pick] of rows) {
    console.log(row(`${baseName}: ${label}`, pick(base)));
    console.log(row(`${name}: ${notes[label] ?? label}`, pick(figures), pick(base), "ms", baseName));
  }
}

compare("PostgreSQL against SQLite, one node (ratios: PostgreSQL ÷ SQLite)", ["SQLite", sqlite], ["PostgreSQL", pg]);
compare("Two nodes and Redis against one node, PostgreSQL (ratios: two nodes ÷ one node); every answer is given on the other node", ["one node", pg], ["two nodes", two], {
  "reply → retraction seen by the 9 other tabs": "reply → retraction (tabs on both nodes)",
  "reply → next line in all tabs, live worker": "reply → next line, worker on the other node",
  "reply → next line, parked run (replay)": "reply → next line, parked run replayed where answered",
});
console.log(`  (ratios are p50 ÷ p50 / p99 ÷ p99 of the set-up named, measured in this run)`);

console.log("\n Each set-up against the floor sampled between its own samples (a bare relay claiming in SQLite → retraction in 9)");
for (const [name, figures] of [
  ["SQLite", sqlite],
  ["PostgreSQL", pg],
  ["two nodes", two],
] as const) {
  console.log(row(`${name}: floor`, figures.live.floor));
  console.log(row(`${name}: reply → retraction seen by the 9 other tabs`, figures.live.retraction, figures.live.floor));
  console.log(row(`${name}: reply → next line, live worker`, figures.live.nextLine, figures.live.floor));
  console.log(row(`${name}: reply → next line, parked run`, figures.parked.nextLine, figures.parked.floor));
}
console.log(`  (load average at the end ${fmt(loadavg()[0]!)})`);
