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
import { checkAfterFaults } from "./faults/checks";
import { driveRun, type RunKind, type RunTrace, type Step } from "./faults/flow";
import { createApi, pause } from "./faults/http";
import { checkWholeNumbers, choose, rngFor } from "./faults/random";
import { cleanupAll, makeTempDir, removeTempDir, startServerGroup, tail, type ServerGroup } from "./faults/server-group";
import { chooseKillPlan, describePlan, reportTrial, runTrialSeries, stateOf, type TrialOutcome } from "./faults/trial-runner";

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

interface TrialResult extends TrialOutcome {
  logs: string[];
  dir: string;
}

/** Where the script is, for the report if it ends unexpectedly. */
const progress = { phase: "starting" };

async function runTrial(trial: number, flowEstimate: { ms: number }): Promise<TrialResult> {
  const began = Date.now();
  const rng = rngFor(SEED, trial);
  const env = {
    PARLEY_PARK_AFTER_MS: String(choose(rng, [150, 600, 3_000])),
    PARLEY_MAX_WORKERS: String(choose(rng, [2, 4])),
  };
  const kinds: RunKind[] = Array.from({ length: RUNS }, () => choose(rng, ["journal", "journal", "many", "parent"] as const));
  const plan = chooseKillPlan(rng, RUNS);
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
    progress.phase = `trial ${trial}: starting the server`;
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
    progress.phase = `trial ${trial}: driving the flow`;
    const t0 = Date.now();
    let killed: Promise<void> | undefined;
    // From the moment the kill starts, a failed request is its effect, not a finding.
    const kill = (why: string) => {
      if (killed) return killed;
      result.killPoint = `${why} (${Date.now() - t0} ms in): ${traces.map(stateOf).join(", ")}`;
      progress.phase = `trial ${trial}: killing the server, ${result.killPoint}`;
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
    progress.phase = `trial ${trial}: restarting the server`;
    const second = await startServerGroup({ databaseFile, env, startTimeoutMs: START_TIMEOUT_MS });
    servers.push(second);
    const after = createApi(second.url);
    progress.phase = `trial ${trial}: checking after the restart`;
    result.problems.push(...(await checkAfterFaults({ api: after, sessionId, traces, tag: `t${trial}-after`, pick: rng, settleMs: SETTLE_MS, finishMs: FINISH_TIMEOUT_MS, idle: [{ api: after }] })));
    result.logs.push(second.output());
  } catch (err) {
    result.problems.push(`the trial could not go on: ${(err as Error).message}`);
    for (const s of servers.slice(result.logs.length)) result.logs.push(s.output());
  } finally {
    progress.phase = `trial ${trial}: ending its servers`;
    for (const s of servers) await s.kill().catch((err) => result.problems.push(`could not end the server: ${err.message}`));
    if (result.problems.length === 0 || !values["keep-failed"]) removeTempDir(dir);
    result.seconds = (Date.now() - began) / 1000;
  }
  return result;
}

function report(r: TrialResult) {
  const logs = r.logs.map((log, i) => ({ name: `server log ${i === 0 ? "before the kill" : "after the restart"}`, text: tail(log, 15) }));
  reportTrial(r, { trials: TRIALS, acknowledged: "answer(s) acknowledged before it", logs });
  if (r.problems.length > 0 && values["keep-failed"]) console.log(`    database kept in ${r.dir}`);
}

runTrialSeries({
  name: "fault trials",
  trials: TRIALS,
  seed: SEED,
  only: ONLY,
  header: `fault trials: ${TRIALS} trial(s), seed ${SEED}, ${RUNS} run(s) each`,
  flowMs: MAX_DELAY_MS,
  run: runTrial,
  report,
  cleanup: cleanupAll,
  progress,
});
