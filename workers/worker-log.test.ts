import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "..");

/** A process that logs as a worker does (its output captured): two runs' code prints, and so does the worker outside any run. */
const SCRIPT = `
import { captureOutput, createWorkerLog } from "./workers/worker-log.ts";
import { createRunScope, runInScope } from "./workers/runtime/run-scope.ts";
const log = createWorkerLog((runId) => ({ r1: "test.one", r2: "test.two" })[runId]);
captureOutput(log);
runInScope(createRunScope("r1"), () => console.log("said by r1"));
await runInScope(createRunScope("r2"), async () => {
  await new Promise((r) => setTimeout(r, 5));
  console.error("complained by r2\\nover two lines");
  process.stdout.write("written by r2\\n");
});
log.error({ err: new Error("boom") }, "the worker's own");
`;

describe("a worker's log", () => {
  it("is JSON on stderr, and what a run's code prints names that run and its function", async () => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", SCRIPT], { cwd: root, env: { ...process.env, PARLEY_LOG_LEVEL: "info" } });
    expect(stdout).toBe("");
    const lines = stderr
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map(({ level, runId, fn, stream, msg }) => ({ level, runId, fn, stream, msg }))).toEqual([
      { level: 30, runId: "r1", fn: "test.one", stream: "stdout", msg: "said by r1" },
      { level: 40, runId: "r2", fn: "test.two", stream: "stderr", msg: "complained by r2" },
      { level: 40, runId: "r2", fn: "test.two", stream: "stderr", msg: "over two lines" },
      { level: 30, runId: "r2", fn: "test.two", stream: "stdout", msg: "written by r2" },
      { level: 50, runId: undefined, fn: undefined, stream: undefined, msg: "the worker's own" },
    ]);
    expect(lines[4]!.err).toMatchObject({ message: "boom" });
  });
});
