/**
 * Cluster fault trials against the production build (`npm run build` first). Each trial starts 2
 * or 3 nodes on a fresh PostgreSQL database and a Redis of its own, with a short run lease, and
 * drives several runs through start → question asked → answer → resume → finished (some are
 * stopped on the way), every command sent to a random node (a request a node could not answer
 * goes again to another, with the same commandId, as a client behind a load balancer would). At
 * a random point it SIGKILLs a random node's whole process group (sometimes Redis too, started
 * again a moment later), starts a replacement node, lets the runs go on and settle, and checks:
 * no acknowledged answer lost, no question answered twice, repeated commands give their first
 * receipts, every run ends exactly once and nothing is left running or pending without an owner;
 * and, watching the database throughout, no journal position written twice with different
 * content and every run's `attempts` within what its waits and the faults explain.
 * Prints each trial's kill point and result, then "N passed, M failed".
 *
 * Usage: npm run faults:cluster [-- --trials 20 --seed 7 --only 3 --runs 4 --nodes 3 --lease-ms 1500 --max-delay 2000]
 * Skips (exit 0, with the reason) when PostgreSQL or redis-server is missing.
 */
import { parseArgs } from "node:util";
import { clusterPrerequisites, CLUSTER_PG_URL, startRedis } from "../tests/helpers/cluster";
import { createPgDatabase, type TestDatabase } from "../tests/helpers/test-db";
import { checkAfterFaults } from "./faults/checks";
import { watchDatabase, type DbWatch } from "./faults/db-watch";
import { driveRun, type RunKind, type RunTrace, type Step } from "./faults/flow";
import { createApi, createRoutedApi, pause } from "./faults/http";
import { checkWholeNumbers, choose, rngFor } from "./faults/random";
import { cleanupAll, startServerGroup, tail, type ServerGroup } from "./faults/server-group";
import { chooseKillPlan, describePlan, reportTrial, runTrialSeries, stateOf, type TrialOutcome } from "./faults/trial-runner";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "20" },
    seed: { type: "string" },
    runs: { type: "string", default: "4" },
    /** Nodes at the start (else 2 or 3 at random). */
    nodes: { type: "string" },
    "lease-ms": { type: "string", default: "1500" },
    "max-delay": { type: "string", default: "2000" },
    "settle-ms": { type: "string", default: "30000" },
    only: { type: "string" },
  },
});
const TRIALS = Number(values.trials);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(values.runs);
const NODES = values.nodes !== undefined ? Number(values.nodes) : undefined;
const LEASE_MS = Number(values["lease-ms"]);
const MAX_DELAY_MS = Number(values["max-delay"]);
const SETTLE_MS = Number(values["settle-ms"]);
const ONLY = values.only !== undefined ? Number(values.only) : undefined;
const START_TIMEOUT_MS = 120_000;
const FINISH_TIMEOUT_MS = 60_000;
checkWholeNumbers(
  {
    trials: TRIALS,
    seed: SEED,
    runs: RUNS,
    "lease-ms": LEASE_MS,
    "max-delay": MAX_DELAY_MS,
    "settle-ms": SETTLE_MS,
    ...(NODES !== undefined && { nodes: NODES }),
    ...(ONLY !== undefined && { only: ONLY }),
  },
  ["trials", "runs", "nodes", "lease-ms"],
);
if (NODES !== undefined && NODES < 2) {
  console.error("--nodes must be at least 2");
  process.exit(2);
}

interface TrialResult extends TrialOutcome {
  logs: Array<{ name: string; text: string }>;
}

/** What a trial holds that an interrupt must end too (server groups are tracked by server-group.ts). */
const held = { redis: new Set<{ stop(): Promise<void> }>(), dbs: new Set<TestDatabase>(), watches: new Set<DbWatch>() };
async function releaseHeld(): Promise<void> {
  await cleanupAll();
  for (const w of held.watches) await w.stop().catch(() => {});
  for (const r of held.redis) await r.stop().catch(() => {});
  for (const db of held.dbs) await db.drop().catch(() => {});
  held.watches.clear();
  held.redis.clear();
  held.dbs.clear();
}

const progress = { phase: "starting" };

interface Node {
  name: string;
  group: ServerGroup;
  /** Its id in the cluster (/api/health), as run leases name it. */
  id: string;
}

async function runTrial(trial: number, flowEstimate: { ms: number }): Promise<TrialResult> {
  const began = Date.now();
  const rng = rngFor(SEED, trial);
  // Which node serves each request: a stream of its own, so the trial's plan replays whatever the timing.
  const routing = rngFor(SEED ^ 0x2545f491, trial);
  const nodeCount = NODES ?? choose(rng, [2, 2, 3]);
  const env: Record<string, string> = {
    PARLEY_RUN_LEASE_MS: String(LEASE_MS),
    PARLEY_PARK_AFTER_MS: String(choose(rng, [150, 600, 3_000])),
    PARLEY_MAX_WORKERS: String(choose(rng, [2, 4])),
  };
  const kinds: RunKind[] = Array.from({ length: RUNS }, () => choose(rng, ["journal", "journal", "many", "parent"] as const));
  const stops = kinds.map(() => (rng() < 0.25 ? choose(rng, ["asked", "answered"] as const) : undefined));
  const plan = chooseKillPlan(rng, RUNS);
  const victim = Math.floor(rng() * nodeCount);
  const redisDownMs = rng() < 0.3 ? 300 + Math.floor(rng() * 2_500) : undefined;
  const staggers = kinds.map(() => Math.floor(rng() * 300));

  const result: TrialResult = {
    trial,
    setup: `${nodeCount} nodes, lease ${LEASE_MS} ms, park ${env.PARLEY_PARK_AFTER_MS} ms, ${env.PARLEY_MAX_WORKERS} workers, runs ${kinds.map((k, i) => k + (stops[i] ? ` (stop after ${stops[i]})` : "")).join(" + ")}`,
    killPoint: `planned: node ${victim + 1}${redisDownMs ? ` and Redis for ${redisDownMs} ms` : ""}, ${describePlan(plan, flowEstimate.ms)}`,
    acknowledged: 0,
    problems: [],
    seconds: 0,
    logs: [],
  };
  const nodes: Node[] = [];
  const up: Node[] = [];
  let db: TestDatabase | undefined;
  let redis: Awaited<ReturnType<typeof startRedis>> | undefined;
  let watch: DbWatch | undefined;
  let faults = 0;
  try {
    progress.phase = `trial ${trial}: making the database, Redis and ${nodeCount} nodes`;
    db = await createPgDatabase(CLUSTER_PG_URL, "parley_cluster_trial");
    held.dbs.add(db);
    redis = await startRedis();
    held.redis.add(redis);
    const nodeEnv = { ...env, DATABASE_URL: db.url, REDIS_URL: redis.url };
    const startNode = async (name: string) => {
      const group = await startServerGroup({ env: nodeEnv, startTimeoutMs: START_TIMEOUT_MS });
      const node = { name, group, id: "" };
      nodes.push(node);
      node.id = (await createApi(group.url).get<{ node: { id: string } }>("/api/health")).node.id;
      return node;
    };
    up.push(...(await Promise.all(Array.from({ length: nodeCount }, (_, i) => startNode(`node ${i + 1}`)))));
    watch = await watchDatabase(db.url);
    held.watches.add(watch);

    const api = createRoutedApi(() => up.map((n) => n.group.url), routing);
    const sessionId = (await api.post("/api/sessions", { title: `cluster trial ${trial}` })).id as string;
    const traces: RunTrace[] = kinds.map((kind, i) => ({
      k: i + 1,
      kind,
      startCommandId: `c${trial}-start-${i + 1}`,
      resumeCommandId: `c${trial}-resume-${i + 1}`,
      ...(stops[i] && { stop: { after: stops[i], commandId: `c${trial}-stop-${i + 1}` } }),
      steps: [],
      replies: [],
    }));

    // Phase 1: drive the flow; kill a node (and maybe Redis) somewhere inside it; the flow goes on through the survivors.
    progress.phase = `trial ${trial}: driving the flow`;
    const t0 = Date.now();
    let killedAt: number | undefined;
    let aftermath: Promise<void> | undefined;
    const kill = (why: string) => {
      if (aftermath) return aftermath;
      killedAt = Date.now();
      const doomed = nodes[victim]!;
      result.killPoint = `${doomed.name} (leases of ${watch!.leasesOf(doomed.id)} active runs)${redisDownMs ? ` and Redis for ${redisDownMs} ms` : ""} ${why} (${killedAt - t0} ms in): ${traces.map(stateOf).join(", ")}`;
      progress.phase = `trial ${trial}: killing ${doomed.name}`;
      up.splice(up.indexOf(doomed), 1);
      faults += 1 + (redisDownMs ? 1 : 0);
      aftermath = (async () => {
        await Promise.all([doomed.group.kill(), redisDownMs ? redis!.stop() : undefined]);
        const back = redisDownMs ? pause(redisDownMs).then(() => redis!.start()) : undefined;
        // The replacement: a node a supervisor would start in the dead one's place.
        const replacement = startNode(`node ${nodeCount + 1} (replacement)`).then((n) => void up.push(n));
        await Promise.all([back, replacement]);
      })();
      return aftermath;
    };
    const delayMs = plan.kind === "delay" ? Math.round(plan.fraction * flowEstimate.ms) : 0;
    const timer = plan.kind === "delay" ? setTimeout(() => void kill(`after a random delay of ${delayMs} ms`), delayMs) : undefined;
    const onStep = (t: RunTrace, step: Step) => {
      if (plan.kind === "after" && t.k === plan.run && step === plan.step && t.steps.filter((s) => s === step).length === 1) {
        setTimeout(() => void kill(`${plan.extraMs} ms after run #${t.k} ${step}`), plan.extraMs);
      }
    };
    const never = new AbortController().signal;
    await Promise.allSettled(
      traces.map(async (trace, i) => {
        try {
          await pause(staggers[i]!);
          await driveRun({ api, sessionId, trace, tag: `c${trial}-r${trace.k}`, pick: rng, signal: never, onStep, stepTimeoutMs: 30_000 });
        } catch (err) {
          trace.error = `${(err as Error).message}${killedAt ? " (after the kill)" : ""}`;
        }
      }),
    );
    clearTimeout(timer);
    if (!aftermath) {
      const planned = describePlan(plan, flowEstimate.ms);
      flowEstimate.ms = Math.round((flowEstimate.ms + (Date.now() - t0)) / 2);
      void kill(`when the flow had finished before the planned kill (${planned})`);
    }
    progress.phase = `trial ${trial}: waiting for the replacement node${redisDownMs ? " and Redis" : ""}`;
    await aftermath;
    result.acknowledged = traces.reduce((n, t) => n + t.replies.filter((r) => r.receipt).length, 0);
    // Survivors serve on: a run the flow could not finish through them is a finding, not an effect of the kill.
    for (const t of traces) if (t.error) result.problems.push(`run #${t.k} during the flow: ${t.error}`);

    // Phase 2: left alone, everything settles; then the checks, through random nodes.
    progress.phase = `trial ${trial}: checking`;
    const idle = up.map((n) => ({ name: n.name, api: createApi(n.group.url) }));
    result.problems.push(...(await checkAfterFaults({ api, sessionId, traces, tag: `c${trial}-after`, pick: rng, settleMs: SETTLE_MS, finishMs: FINISH_TIMEOUT_MS, idle })));
    await watch.sample();
    result.problems.push(...watch.problems(faults));
  } catch (err) {
    result.problems.push(`the trial could not go on: ${(err as Error).message}`);
  } finally {
    progress.phase = `trial ${trial}: ending its nodes`;
    for (const n of nodes) {
      await n.group.kill().catch((err) => result.problems.push(`could not end ${n.name}: ${err.message}`));
      result.logs.push({ name: n.name, text: n.group.output() });
    }
    if (watch) await watch.stop().then(() => held.watches.delete(watch!));
    if (redis) await redis.stop().then(() => held.redis.delete(redis!));
    if (db)
      await db.drop().then(
        () => held.dbs.delete(db!),
        (err) => result.problems.push(`could not drop the database: ${err.message}`),
      );
    result.seconds = (Date.now() - began) / 1000;
  }
  return result;
}

function report(r: TrialResult) {
  const logs = r.logs.map((log) => ({ name: `${log.name} log`, text: tail(log.text, 15) }));
  reportTrial(r, { trials: TRIALS, acknowledged: "answer(s) acknowledged by then or after", logs });
}

runTrialSeries({
  name: "cluster trials",
  trials: TRIALS,
  seed: SEED,
  only: ONLY,
  header: `cluster trials: ${TRIALS} trial(s), seed ${SEED}, ${RUNS} run(s) each, lease ${LEASE_MS} ms`,
  async needs() {
    const prerequisites = await clusterPrerequisites();
    if (!prerequisites.ok) return `cluster trials SKIPPED: they need PostgreSQL and redis-server: ${prerequisites.reason}`;
  },
  flowMs: MAX_DELAY_MS,
  run: runTrial,
  report,
  cleanup: releaseHeld,
  progress,
});
