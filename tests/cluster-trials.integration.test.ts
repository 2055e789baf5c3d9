import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { clusterPrerequisites } from "./helpers/cluster";

/**
 * A short run of the cluster fault trials (scripts/cluster-trials.ts; `npm run faults:cluster`
 * runs 20) as part of `npm test`: two trials of 2–3 nodes on PostgreSQL and Redis, a random node
 * SIGKILLed (sometimes Redis too) at a random point of start → ask → answer → resume → stop,
 * a replacement started, and the script's checks. Needs `npm run build` first.
 */

const root = path.resolve(import.meta.dirname, "..");
const TRIALS = Number(process.env.PARLEY_CLUSTER_TRIALS ?? 2);
const prerequisites = await clusterPrerequisites();
if (!prerequisites.ok) console.warn(`[cluster-trials] SKIPPED: the cluster fault trials need PostgreSQL and Redis: ${prerequisites.reason}`);

function runTrials(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/cluster-trials.ts"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe.skipIf(!prerequisites.ok)("cluster fault trials", () => {
  it(
    `a random node of a cluster killed with SIGKILL (sometimes Redis too) at ${TRIALS} random points: no acknowledged answer lost, no question answered twice, no journal position rewritten, every run ends once`,
    { timeout: 60_000 + TRIALS * 60_000 },
    async () => {
      const { code, output } = await runTrials(["--trials", String(TRIALS)]);
      expect(output).toContain(`${TRIALS} passed, 0 failed`);
      expect(code, output).toBe(0);
    },
  );
});
