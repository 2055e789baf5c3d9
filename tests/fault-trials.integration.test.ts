import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * A short run of the fault trials (scripts/fault-trials.ts; `npm run faults` runs 50) as part of
 * `npm test`: two (PARLEY_FAULT_TRIALS; `npm run test:long` four) SIGKILLs of the production server at random points of start → ask → answer →
 * resume, each followed by a restart and the script's checks. Needs `npm run build` first.
 */

const root = path.resolve(import.meta.dirname, "..");
const TRIALS = Number(process.env.PARLEY_FAULT_TRIALS ?? 2);

function runTrials(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", path.join(root, "scripts/fault-trials.ts"), ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

describe("fault trials", () => {
  it(
    `the server killed with SIGKILL at ${TRIALS} random points of the run flow loses no acknowledged answer, answers no question twice and leaves nothing without an owner`,
    { timeout: 120_000 + TRIALS * 90_000 },
    async () => {
      const { code, output } = await runTrials(["--trials", String(TRIALS)]);
      expect(output).toContain(`${TRIALS} passed, 0 failed`);
      expect(code, output).toBe(0);
    },
  );
});
