/**
 * Retraction to many tabs across two nodes: N tabs (default 10,000) of ONE session split evenly over
 * two production nodes on PostgreSQL and Redis (live worker). Per sample, a run of `test.ask` is
 * started over REST on the first node and answered from a tab on the second; the figure is the time
 * from the reply to question.replied in the last of the N-1 other tabs. Beside it, the floor: two bare
 * Socket.IO relays over the same Redis with @socket.io/redis-adapter (bench-kit-relay.ts), their
 * clients split the same way, a "reply" broadcast to the N-1 others; sampled between the app's own
 * samples. The tabs of both live in child processes (bench-kit-swarm.ts, --children of them), each
 * telling when its last tab saw the event on the monotonic clock this process shares, so neither
 * figure is held up by one process reading N broadcasts. Each reply (the floor's too) is sent once no
 * tab has heard anything for --quiet-ms: the run's start has been read, as when a person answers.
 * Prints p50/p99 and ratios, and the CPU time each side used; asserts nothing.
 * Needs ~2N/children + 1,024 open files a process: it raises its soft limit up to the hard one itself.
 * Usage: npm run build && npm run bench:fanout-nodes [-- --tabs 10000 --samples 30 --children 4 --quiet-ms 200]
 */
import { loadavg } from "node:os";
import { parseArgs } from "node:util";
import { api, fmt, machine, memory, row } from "./bench-kit";
import { cpuMs, ensureOpenFiles, msBetween, relayClient, startRelay, startSwarm, type SwarmOpening } from "./bench-kit-swarm-parent";
import { clusterPrerequisites, startCluster } from "../tests/helpers/cluster";
import { openTab } from "../tests/helpers/remote";
import { TEST_TOKEN } from "../tests/helpers/server-process";

const { values } = parseArgs({
  options: {
    tabs: { type: "string", default: "10000" },
    samples: { type: "string", default: "30" },
    children: { type: "string", default: "4" },
    "quiet-ms": { type: "string", default: "200" },
  },
});
const TABS = Number(values.tabs);
const SAMPLES = Number(values.samples);
const CHILDREN = Number(values.children);
/** Each reply is sent once no tab has heard anything for this long: the run's start has been read. */
const QUIET_MS = Number(values["quiet-ms"]);
const WARMUP = 2;

await ensureOpenFiles(Math.ceil((2 * TABS) / CHILDREN) + 1_024);
const ready = await clusterPrerequisites();
if (!ready.ok) {
  console.log(`bench-fanout-nodes: skipped: ${ready.reason}`);
  process.exit(0);
}

/**
 * The other N-1 tabs: half on each of `urls` (the replier is the second's), each node's share
 * spread evenly over the children.
 */
function spread(urls: [string, string], group: string, kind: "app" | "relay", extra: Partial<SwarmOpening> = {}): SwarmOpening[] {
  const perNode = [Math.ceil(TABS / 2), Math.floor(TABS / 2) - 1];
  const openings: SwarmOpening[] = [];
  urls.forEach((url, n) => {
    for (let c = 0; c < CHILDREN; c++) {
      const count = Math.floor(perNode[n]! / CHILDREN) + (c < perNode[n]! % CHILDREN ? 1 : 0);
      openings.push({ child: c, group, kind, url, count, ...extra });
    }
  });
  return openings;
}

console.log(
  `\nRetraction to ${TABS} tabs of one session on two nodes (PostgreSQL + Redis), ${SAMPLES} samples, tabs in ${CHILDREN} child processes (${machine()}; load average ${fmt(loadavg()[0]!)})`,
);
const cluster = await startCluster(2, { PARLEY_PARK_AFTER_MS: "600000" });
const [home, away] = cluster.nodes as [(typeof cluster.nodes)[0], (typeof cluster.nodes)[0]];
const relays = [await startRelay(cluster.redis.url), await startRelay(cluster.redis.url)];
const swarm = await startSwarm(CHILDREN);
try {
  const session = await api<{ id: string }>(home, "/api/sessions", { title: "bench" });
  const replier = await openTab(away.url);
  const joined = (await replier.emitWithAck("session.join", { sessionId: session.id })) as { ok: boolean };
  if (!joined.ok) throw new Error("session.join failed");
  const relayReplier = await relayClient(relays[1]!.url);
  const before = [memory(home), memory(away)];
  const opened = performance.now();
  await swarm.open([...spread([home.url, away.url], "app", "app", { token: TEST_TOKEN, sessionId: session.id }), ...spread([relays[0]!.url, relays[1]!.url], "relay", "relay")]);
  const openedMs = performance.now() - opened;
  const after = [memory(home), memory(away)];

  const floor: number[] = [];
  const retraction: number[] = [];
  const firstTab = { floor: [] as number[], app: [] as number[] };
  const cpu = { relays: 0, tabs: 0, nodes: 0 };
  const nodePids = [home.child.pid!, away.child.pid!];
  const relayPids = relays.map((r) => r.pid);
  for (let i = 0; i < SAMPLES + WARMUP; i++) {
    await swarm.quiet(QUIET_MS);
    const id = `q${i}`;
    const relayCpu = cpuMs(relayPids);
    const tabsCpu = cpuMs(swarm.pids);
    const floorSent = process.hrtime.bigint();
    if (!((await relayReplier.emitWithAck("reply", { id })) as { ok: boolean }).ok) throw new Error("the relay refused a reply");
    const floorSeen = await swarm.seen("relay", `retracted:${id}`);
    const relayCpuUsed = cpuMs(relayPids) - relayCpu;
    const tabsCpuUsed = cpuMs(swarm.pids) - tabsCpu;

    const nodeCpu = cpuMs(nodePids);
    const run = await api<{ id: string }>(home, `/api/sessions/${session.id}/runs`, { function: "test.ask", input: { prompt: `Question ${i}?`, options: ["ok"] } });
    const question = (await swarm.seen("app", `asked:${run.id}`)).payload as { id: string };
    await swarm.quiet(QUIET_MS);
    const sent = process.hrtime.bigint();
    const ack = (await replier.emitWithAck("question.reply", { id: question.id, value: "ok" })) as { ok: boolean };
    if (!ack.ok) throw new Error(`reply refused: ${JSON.stringify(ack)}`);
    const replied = await swarm.seen("app", `replied:${question.id}`);
    await swarm.seen("app", `succeeded:${run.id}`);
    if (i >= WARMUP) {
      floor.push(msBetween(floorSent, floorSeen.last));
      retraction.push(msBetween(sent, replied.last));
      firstTab.floor.push(msBetween(floorSent, floorSeen.first));
      firstTab.app.push(msBetween(sent, replied.first));
      cpu.relays += relayCpuUsed / SAMPLES;
      cpu.tabs += tabsCpuUsed / SAMPLES;
      cpu.nodes += (cpuMs(nodePids) - nodeCpu) / SAMPLES;
    }
  }
  console.log(row(`floor: two bare relays + Redis → retraction in ${TABS - 1}`, floor));
  console.log(row(`reply → retraction seen by the ${TABS - 1} other tabs`, retraction, floor));
  console.log(row(`floor: → retraction in the first of them`, firstTab.floor));
  console.log(row(`reply → retraction in the first of them`, firstTab.app, firstTab.floor));
  console.log(
    `  (CPU a sample: the two relays ${fmt(cpu.relays, 0)} ms and the tabs' processes ${fmt(cpu.tabs, 0)} ms for the floor's retraction; the two nodes and their workers ${fmt(cpu.nodes, 0)} ms for the whole loop: run start, card, reply, retraction, the run's end)`,
  );
  const kb = (n: number) => fmt(((after[n]!.serverMb - before[n]!.serverMb) * 1024) / (TABS / 2));
  console.log(
    `  (${TABS} tabs and ${TABS} relay clients opened in ${fmt(openedMs / 1000, 1)} s; node RSS ${fmt(after[0]!.serverMb)} and ${fmt(after[1]!.serverMb)} MB with them, ${kb(0)} and ${kb(1)} KB a tab; load average ${fmt(loadavg()[0]!)})`,
  );
  replier.disconnect();
  relayReplier.disconnect();
} finally {
  await swarm.close();
  await Promise.all(relays.map((r) => r.close()));
  await cluster.close();
}
