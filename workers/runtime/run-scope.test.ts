import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { createRunScope, installRunScopes, leaveScope, runInScope, type FaultHandler, type RunScope } from "./run-scope";

const faults: Array<{ error: unknown; runId: string | undefined; kind: string }> = [];
const onFault: FaultHandler = (error, scope, kind) => faults.push({ error, runId: scope?.runId, kind });

beforeAll(() => installRunScopes(onFault));

/** Resolves after `ms` on a timer that belongs to no run. */
const later = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe("run scopes", () => {
  it("clears the timers, intervals and immediates a run set when it leaves; timers of no run are untouched", async () => {
    const fired: string[] = [];
    const scope = createRunScope("r1");
    runInScope(scope, () => {
      setTimeout(() => fired.push("timeout"), 20);
      setInterval(() => fired.push("interval"), 20);
      setImmediate(() => fired.push("immediate"));
    });
    setTimeout(() => fired.push("outside"), 20);
    expect(scope.timers.size).toBe(3);
    leaveScope(scope);
    await later(60);
    expect(fired).toEqual(["outside"]);
    expect(scope.timers.size).toBe(0);
  });

  it("tracks timers set by what the run awaits, and forgets timers that fired or were cleared", async () => {
    const scope = createRunScope("r2");
    await runInScope(scope, async () => {
      await later(1);
      const cleared = setTimeout(() => {}, 1_000);
      clearTimeout(cleared);
      await later(1);
    });
    expect(scope.timers.size).toBe(0);
    const pending = runInScope(scope, () => setTimeout(() => {}, 1_000));
    expect(scope.timers.has(pending)).toBe(true);
    leaveScope(scope);
  });

  it("a run that has left cannot set new timers", async () => {
    const scope: RunScope = createRunScope("r3");
    leaveScope(scope);
    let fired = false;
    runInScope(scope, () => setTimeout(() => (fired = true), 1));
    await later(20);
    expect(fired).toBe(false);
  });

  it("reports an error thrown or rejected by a run's timer with that run, instead of throwing it", async () => {
    faults.length = 0;
    const scope = createRunScope("r4");
    const boom = new Error("boom");
    const nope = new Error("nope");
    runInScope(scope, () => {
      setTimeout(() => {
        throw boom;
      }, 1);
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- what is tested: the scope catches an async timer's rejection.
      setTimeout(async () => {
        throw nope;
      }, 1);
    });
    await later(20);
    expect(faults).toEqual([
      { error: boom, runId: "r4", kind: "exception" },
      { error: nope, runId: "r4", kind: "rejection" },
    ]);
    leaveScope(scope);
  });

  it("keeps util.promisify(setTimeout) working", async () => {
    await expect(promisify(setTimeout)(1, "done")).resolves.toBe("done");
  });
});
