/**
 * Fault trials against the production build (`npm run build` first). Each trial starts the server
 * on a fresh database, drives several runs through start → question asked → answer → resume →
 * finished, and kills the whole server process group with SIGKILL at a random point: after a
 * random delay, or right after a chosen step's response. It restarts the server on the same
 * database and checks that no acknowledged answer was lost, no question was answered twice,
 * repeated commands give their first receipts, and nothing is left running or pending without
 * an owner. Prints each trial's kill point and result, then "N passed, M failed".
 *
 * Usage: npm run faults [-- --trials 50 --seed 7 --only 12 --runs 3 --max-delay 2500 --keep-failed]
 * (--max-delay: the first guess at how long a whole flow takes; later trials use what they saw.)
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { checkAcknowledged, checkIdle, checkOutcomes, checkSettles, checkTwins, finishAll } from "./faults/checks";
import { driveRun, KILL_STEPS, RUN_KINDS, type RunKind, type RunTrace, type Step } from "./faults/flow";
import { createApi, pause } from "./faults/http";
import { checkWholeNumbers, choose, rngFor } from "./faults/random";
import { assertBuilt, cleanLeftovers, cleanupAll, makeTempDir, removeTempDir, startServerGroup, tail, type ServerGroup } from "./faults/server-group";

const { values } = parseArgs({
  options: {
    trials: { type: "string", default: "50" },
    seed: { type: "string" },
    runs: { type: "string", default: "3" },
    "max-delay": { type: "string", default: "2500" },
    "settle-ms": { type: "string", default: "45000" },
    "keep-failed": { type: "boolean", default: false },
    only: { type: "string" },
  },
});
const TRIALS = Number(values.trials);
const SEED = values.seed !== undefined ? Number(values.seed) : Math.floor(Math.random() * 2 ** 31);
const RUNS = Number(values.runs);
const MAX_DELAY_MS = Number(values["max-delay"]);
const SETTLE_MS = Number(values["settle-ms"]);
/** Replays one trial of a seed (its choices; the timing differs). */
const ONLY = values.only !== undefined ? Number(values.only) : undefined;
const START_TIMEOUT_MS = 120_000;
const FINISH_TIMEOUT_MS = 90_000;
checkWholeNumbers({ trials: TRIALS, seed: SEED, runs: RUNS, "max-delay": MAX_DELAY_MS, "settle-ms": SETTLE_MS, ...(ONLY !== undefined && { only: ONLY }) }, ["trials", "runs"]);

/** A random delay is a fraction of how long a whole flow took so far on this machine, so slow machines get kills all through it too. */
type KillPlan = { kind: "delay"; fraction: number } | { kind: "after"; run: number; step: Step; extraMs: number };

interface TrialResult {
  trial: number;
  setup: string;
  killPoint: string;
  acknowledged: number;
  problems: string[];
  seconds: number;
  logs: string[];
  dir: string;
}

/** Where the script is, for the report if it ends unexpectedly. */
let phase = "starting";
let done = false;
process.on("exit", (code) => {
  if (done) return;
  console.error(`\nthe fault trials ended unexpectedly (exit code ${code}) during: ${phase}`);
  process.exitCode = 3;
});

const describePlan = (p: KillPlan, flowMs: number) =>
  p.kind === "delay" ? `${Math.round(p.fraction * flowMs)} ms into the flow` : `${p.extraMs} ms after run #${p.run} ${p.step}`;
const stateOf = (t: RunTrace) => `#${t.k} ${t.steps.at(-1) ?? "not started"}`;

async function runTrial(trial: number, flowEstimate: { ms: number }): Promise<TrialResult> {
  const began = Date.now();
  const rng = rngFor(SEED, trial);
  const env = {
    PARLEY_PARK_AFTER_MS: String(choose(rng, [150, 600, 3_000])),
    PARLEY_MAX_WORKERS: String(choose(rng, [2, 4])),
  };
  const kinds: RunKind[] = Array.from({ length: RUNS }, () => choose(rng, ["journal", "journal", "many", "parent"] as const));
  const plan: KillPlan =
    rng() < 0.5
      ? { kind: "delay", fraction: rng() }
      : { kind: "after", run: 1 + Math.floor(rng() * RUNS), step: choose(rng, KILL_STEPS), extraMs: Math.floor(rng() * 25) };
  const staggers = kinds.map(() => Math.floor(rng() * 300));
  const dir = makeTempDir();
  const databaseFile = path.join(dir, "trial.db");
  const result: TrialResult = {
    trial,
    setup: `park ${env.PARLEY_PARK_AFTER_MS} ms, ${env.PARLEY_MAX_WORKERS} workers, runs ${kinds.join("+")}`,
    killPoint: `planned ${describePlan(plan, flowEstimate.ms)}`,
    acknowledged: 0,
    problems: [],
    seconds: 0,
    logs: [],
    dir,
  };
  const servers: ServerGroup[] = [];
  try {
    // Phase 1: drive the flow and kill the server somewhere inside it.
    phase = `trial ${trial}: starting the server`;
    const first = await startServerGroup({ databaseFile, env, startTimeoutMs: START_TIMEOUT_MS });
    servers.push(first);
    const sessionId = (await createApi(first.url).post("/api/sessions", { title: `fault trial ${trial}` })).id as string;
    const abort = new AbortController();
    const api = createApi(first.url, { signal: abort.signal });
    const traces: RunTrace[] = kinds.map((kind, i) => ({
      k: i + 1,
      kind,
      startCommandId: `t${trial}-start-${i + 1}`,
      resumeCommandId: `t${trial}-resume-${i + 1}`,
      steps: [],
      replies: [],
    }));
    phase = `trial ${trial}: driving the flow`;
    const t0 = Date.now();
    let killed: Promise<void> | undefined;
    // From the moment the kill starts, a failed request is its effect, not a finding.
    const kill = (why: string) => {
      if (killed) return killed;
      result.killPoint = `${why} (${Date.now() - t0} ms in): ${traces.map(stateOf).join(", ")}`;
      phase = `trial ${trial}: killing the server, ${result.killPoint}`;
      killed = first.kill().finally(() => abort.abort(new Error("killed")));
      return killed;
    };
    const delayMs = plan.kind === "delay" ? Math.round(plan.fraction * flowEstimate.ms) : 0;
    const timer = plan.kind === "delay" ? setTimeout(() => void kill(`after a random delay of ${delayMs} ms`), delayMs) : undefined;
    const onStep = (t: RunTrace, step: Step) => {
      if (plan.kind === "after" && t.k === plan.run && step === plan.step && t.steps.filter((s) => s === step).length === 1) {
        setTimeout(() => void kill(`${plan.extraMs} ms after run #${t.k} ${step}`), plan.extraMs);
      }
    };
    await Promise.allSettled(
      traces.map(async (trace, i) => {
        try {
          await pause(staggers[i]!, abort.signal);
          await driveRun({ api, sessionId, trace, tag: `t${trial}-r${trace.k}`, pick: rng, signal: abort.signal, onStep });
        } catch (err) {
          if (!killed) trace.error = (err as Error).message;
        }
      }),
    );
    clearTimeout(timer);
    if (!killed) {
      const planned = describePlan(plan, flowEstimate.ms);
      flowEstimate.ms = Math.round((flowEstimate.ms + (Date.now() - t0)) / 2);
      await kill(`the flow finished before the planned kill (${planned}); killed at its end`);
    }
    result.logs.push(first.output());
    result.acknowledged = traces.reduce((n, t) => n + t.replies.filter((r) => r.receipt).length, 0);
    for (const t of traces) if (t.error) result.problems.push(`run #${t.k} before the kill: ${t.error}`);

    // Phase 2: restart on the same database, leave it alone, then check and finish.
    phase = `trial ${trial}: restarting the server`;
    const second = await startServerGroup({ databaseFile, env, startTimeoutMs: START_TIMEOUT_MS });
    servers.push(second);
    const after = createApi(second.url);
    phase = `trial ${trial}: checking after the restart`;
    const unsettled = await checkSettles(after, sessionId, SETTLE_MS);
    result.problems.push(...unsettled);
    result.problems.push(...(await checkAcknowledged(after, traces)));
    // Runs that nothing moves on cannot be finished: the rest would only repeat that.
    if (unsettled.length === 0) {
      result.problems.push(...(await checkTwins(after, sessionId, traces)));
      const finished = await finishAll(after, sessionId, `t${trial}-after`, rng, FINISH_TIMEOUT_MS);
      result.problems.push(...finished);
      if (finished.length === 0) {
        result.problems.push(...(await checkOutcomes(after, sessionId, traces)));
        result.problems.push(...(await checkIdle(after, 15_000)));
      }
    }
    result.logs.push(second.output());
  } catch (err) {
    result.problems.push(`the trial could not go on: ${(err as Error).message}`);
    for (const s of servers.slice(result.logs.length)) result.logs.push(s.output());
  } finally {
    phase = `trial ${trial}: ending its servers`;
    for (const s of servers) await s.kill().catch((err) => result.problems.push(`could not end the server: ${err.message}`));
    if (result.problems.length === 0 || !values["keep-failed"]) removeTempDir(dir);
    result.seconds = (Date.now() - began) / 1000;
  }
  return result;
}

function report(r: TrialResult) {
  const head = `trial ${String(r.trial).padStart(String(TRIALS).length)}/${TRIALS}  ${r.setup}`;
  console.log(`${head}\n  kill: ${r.killPoint}; ${r.acknowledged} answer(s) acknowledged before it`);
  if (r.problems.length === 0) {
    console.log(`  ok (${r.seconds.toFixed(1)} s)`);
    return;
  }
  console.log(`  FAILED (${r.seconds.toFixed(1)} s):`);
  for (const p of r.problems) console.log(`    - ${p}`);
  r.logs.forEach((log, i) => {
    const text = tail(log, 15);
    if (text) console.log(`    server log ${i === 0 ? "before the kill" : "after the restart"} (last lines):\n${text.replace(/^/gm, "      | ")}`);
  });
  if (values["keep-failed"]) console.log(`    database kept in ${r.dir}`);
}

async function main(): Promise<number> {
  assertBuilt();
  const left = await cleanLeftovers();
  if (left.groups + left.dirs > 0) console.log(`removed ${left.groups} server group(s) and ${left.dirs} temp folder(s) left by an earlier run`);
  console.log(`fault trials: ${TRIALS} trial(s), seed ${SEED}, ${RUNS} run(s) each (functions ${Object.values(RUN_KINDS).map((k) => k.fn).join(", ")})`);
  const failed: TrialResult[] = [];
  const flowEstimate = { ms: MAX_DELAY_MS };
  for (let trial = ONLY ?? 1; trial <= (ONLY ?? TRIALS); trial++) {
    const r = await runTrial(trial, flowEstimate);
    report(r);
    if (r.problems.length > 0) failed.push(r);
  }
  const ran = ONLY === undefined ? TRIALS : 1;
  console.log(`\n${ran - failed.length} passed, ${failed.length} failed (seed ${SEED})`);
  for (const r of failed) console.log(`  trial ${r.trial}: ${r.killPoint}\n    ${r.problems.join("\n    ")}`);
  return failed.length === 0 ? 0 : 1;
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: ending the servers and removing temp folders`);
    done = true;
    void cleanupAll().finally(() => process.exit(130));
  });
}

main()
  .then(async (code) => {
    done = true;
    await cleanupAll();
    process.exit(code);
  })
  .catch(async (err) => {
    console.error(err instanceof Error ? err.message : err);
    done = true;
    await cleanupAll();
    process.exit(2);
  });
