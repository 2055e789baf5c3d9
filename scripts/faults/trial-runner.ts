import { KILL_STEPS, RUN_KINDS, type RunTrace, type Step } from "./flow";
import { choose } from "./random";
import { assertBuilt, cleanLeftovers } from "./server-group";

/** What every trial reports. */
export interface TrialOutcome {
  trial: number;
  setup: string;
  killPoint: string;
  /** Answers acknowledged by the time of the kill (or after it). */
  acknowledged: number;
  problems: string[];
  seconds: number;
}

/** A random delay is a fraction of how long a whole flow took so far on this machine, so slow machines get kills all through it too. */
export type KillPlan = { kind: "delay"; fraction: number } | { kind: "after"; run: number; step: Step; extraMs: number };

/** Half the trials kill after a random delay, half a few ms after a random step of a random run. */
export const chooseKillPlan = (rng: () => number, runs: number): KillPlan =>
  rng() < 0.5 ? { kind: "delay", fraction: rng() } : { kind: "after", run: 1 + Math.floor(rng() * runs), step: choose(rng, KILL_STEPS), extraMs: Math.floor(rng() * 25) };

export const describePlan = (p: KillPlan, flowMs: number) => (p.kind === "delay" ? `${Math.round(p.fraction * flowMs)} ms into the flow` : `${p.extraMs} ms after run #${p.run} ${p.step}`);

/** Where a run's flow was (at the kill). */
export const stateOf = (t: RunTrace) => `#${t.k} ${t.steps.at(-1) ?? "not started"}`;

export interface TrialSeries<R extends TrialOutcome> {
  /** How the series is named in its messages ("fault trials"). */
  name: string;
  trials: number;
  seed: number;
  /** Replays one trial of the seed instead of all. */
  only?: number;
  /** The line printed before the first trial (the functions the runs call are added). */
  header: string;
  /** What the trials need besides the build: a string says why they cannot run (they are skipped, exit 0). */
  needs?(): Promise<string | void>;
  /** The first guess at how long a whole flow takes (ms); each trial is told how long they took so far. */
  flowMs: number;
  run(trial: number, flowEstimate: { ms: number }): Promise<R>;
  report(result: R): void;
  /** Ends whatever the trials still hold (servers, temp folders, databases); after the series, on a signal, or on an error. */
  cleanup(): Promise<void>;
  /** Where the trials are (set by them as they go), for the report if the process ends unexpectedly. */
  progress: { phase: string };
}

/**
 * Runs a series of trials and exits: 0 when all passed, 1 when one failed, 2 on an error, 130 on
 * a signal, 3 when the process ended without finishing (the phase it was in is said).
 */
export function runTrialSeries<R extends TrialOutcome>(series: TrialSeries<R>): void {
  let done = false;
  process.on("exit", (code) => {
    if (done) return;
    console.error(`\nthe ${series.name} ended unexpectedly (exit code ${code}) during: ${series.progress.phase}`);
    process.exitCode = 3;
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      console.error(`\n${signal}: ending what the ${series.name} hold`);
      done = true;
      void series.cleanup().finally(() => process.exit(130));
    });
  }

  async function main(): Promise<number> {
    const missing = await series.needs?.();
    if (missing) {
      console.log(missing);
      return 0;
    }
    assertBuilt();
    const left = await cleanLeftovers();
    if (left.groups + left.dirs > 0) console.log(`removed ${left.groups} server group(s) and ${left.dirs} temp folder(s) left by an earlier run`);
    console.log(
      `${series.header} (functions ${Object.values(RUN_KINDS)
        .map((k) => k.fn)
        .join(", ")})`,
    );
    const failed: R[] = [];
    const flowEstimate = { ms: series.flowMs };
    for (let trial = series.only ?? 1; trial <= (series.only ?? series.trials); trial++) {
      const r = await series.run(trial, flowEstimate);
      series.report(r);
      if (r.problems.length > 0) failed.push(r);
    }
    const ran = series.only === undefined ? series.trials : 1;
    console.log(`\n${ran - failed.length} passed, ${failed.length} failed (seed ${series.seed})`);
    for (const r of failed) console.log(`  trial ${r.trial}: ${r.killPoint}\n    ${r.problems.join("\n    ")}`);
    return failed.length === 0 ? 0 : 1;
  }

  void main()
    .catch((err) => (console.error(err instanceof Error ? err.message : err), 2))
    .then(async (code) => {
      done = true;
      await series.cleanup();
      process.exit(code);
    });
}

/** A trial's headline, its kill point and its result, with the problems and log tails of a failed one. */
export function reportTrial(r: TrialOutcome, { trials, acknowledged, logs }: { trials: number; acknowledged: string; logs: Array<{ name: string; text: string }> }): void {
  console.log(`trial ${String(r.trial).padStart(String(trials).length)}/${trials}  ${r.setup}`);
  console.log(`  kill: ${r.killPoint}; ${r.acknowledged} ${acknowledged}`);
  if (r.problems.length === 0) {
    console.log(`  ok (${r.seconds.toFixed(1)} s)`);
    return;
  }
  console.log(`  FAILED (${r.seconds.toFixed(1)} s):`);
  for (const p of r.problems) console.log(`    - ${p}`);
  for (const log of logs) if (log.text) console.log(`    ${log.name} (last lines):\n${log.text.replace(/^/gm, "      | ")}`);
}
