/**
 * Agent worker: a child process that runs agent functions for the server, one run at a time.
 * Everything it receives is validated against the IPC union; answers arrive on the answer
 * queue (`question.settled`) keyed by question id. A run that only waits can be parked: the
 * worker lets go of it and the server resumes it later, here or elsewhere, from its journal.
 */
import { ChildToParentSchema, ParentToChildSchema, type ChildToParent, type ParentToChild } from "../lib/protocol/ipc";
import { describeZodError } from "../lib/protocol/errors";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describeCatalogue, findAgentFunction, loadFunctionFiles, useCatalogue } from "./function-catalogue";
import { createRuntime, RunCancelled, RunParked, RuntimeError, type RunController } from "./runtime";
import { runErrorOf } from "./runtime/run-error";
import { createRunScope, currentScope, installRunScopes, leaveScope, runInScope, type RunScope } from "./runtime/run-scope";
import { captureOutput, createWorkerLog } from "./worker-log";
import { closeAgentMcp } from "./agent/mcp";
import { startIdleCollection } from "../lib/memory/idle-collection";

/** A run in this worker now. It leaves when it finishes, is parked, or fails. */
interface ActiveRun {
  runId: string;
  functionName: string;
  controller: RunController;
  scope: RunScope;
}

const runs = new Map<string, ActiveRun>();
let retiring = false;
const log = createWorkerLog((runId) => runs.get(runId)?.functionName);
captureOutput(log);

if (!process.send) {
  log.fatal("agent-worker must be started by the Parley server (fork with IPC).");
  process.exit(1);
}

function send(message: ChildToParent): void {
  const checked = ChildToParentSchema.safeParse(message);
  if (!checked.success) throw new Error(`Refusing to send an invalid IPC message: ${describeZodError(checked.error)}`);
  process.send!(checked.data);
}

/** The run's turn here is over: its timers go with it, and the runtime may not speak for it any more. */
function leave(run: ActiveRun): void {
  if (runs.get(run.runId) === run) runs.delete(run.runId);
  leaveScope(run.scope);
}

function finish(run: ActiveRun, outcome: Extract<ChildToParent, { type: "run.finished" }>): void {
  leave(run);
  try {
    send(outcome);
  } catch (err) {
    log.error({ runId: run.runId, fn: run.functionName, err }, `agent-worker: run ${run.runId} ended, but its outcome cannot be sent`);
    send({ type: "run.finished", runId: run.runId, status: "failed", error: runErrorOf(err, run.functionName) });
  }
}

async function startRun(msg: Extract<ParentToChild, { type: "run.start" }>): Promise<void> {
  const fn = findAgentFunction(msg.functionName);
  if (!fn) {
    send({ type: "run.finished", runId: msg.runId, status: "failed", error: { code: "not_found:function", message: `No agent function named "${msg.functionName}".` } });
    return;
  }
  const scope = createRunScope(msg.runId);
  const controller = createRuntime({
    runId: msg.runId,
    sessionId: msg.sessionId,
    canAsk: msg.canAsk,
    journal: msg.journal,
    send(message) {
      if (scope.left) throw new RunCancelled("The run has left this worker.", msg.runId);
      send(message);
    },
  });
  const run: ActiveRun = { runId: msg.runId, functionName: fn.name, controller, scope };
  runs.set(msg.runId, run);
  let outcome: Extract<ChildToParent, { type: "run.finished" }>;
  try {
    const result = await runInScope(scope, () => fn.run(controller.rt, msg.input));
    outcome = { type: "run.finished", runId: msg.runId, status: "succeeded", result: result ?? null };
  } catch (err) {
    const status = controller.rt.signal.aborted ? "cancelled" : "failed";
    outcome = { type: "run.finished", runId: msg.runId, status, error: runErrorOf(err, fn.name) };
  }
  // Parked, or already failed by a stray error: its end is nobody's news.
  if (scope.left) return;
  const divergence = controller.divergence();
  if (divergence) outcome = { type: "run.finished", runId: msg.runId, status: "failed", error: runErrorOf(divergence, fn.name) };
  finish(run, outcome);
}

/**
 * An error escaped a run's code (a timer's callback, a promise nobody awaited). It is charged to
 * the run that caused it: that run fails if it is still here; a run that has left is only logged
 * (the runtime's interruptions, RunParked and RunCancelled, not even that). The process lives on
 * for the runs beside it, but after an uncaught exception it retires: the pool will not reuse it.
 */
function onFault(error: unknown, scope: RunScope | undefined, kind: "exception" | "rejection"): void {
  try {
    const runId = scope?.runId ?? (error instanceof RuntimeError ? error.runId : undefined);
    const run = runId ? runs.get(runId) : undefined;
    const active = run !== undefined && !run.scope.left;
    const interruption = error instanceof RunParked || error instanceof RunCancelled;
    // The runtime's interruptions from a run that has left, or is being stopped, are expected.
    if (interruption && (!active || run.controller.rt.signal.aborted) && runId) return;
    const what = kind === "exception" ? "an uncaught exception" : "an unhandled rejection";
    // Say so before the run's end, so the pool knows by the time the run gives the worker back.
    if (kind === "exception" && !interruption) retire(`${what} in ${runId ? `run ${runId}` : "no known run"}`);
    if (!active) {
      log.error({ runId, err: error }, `agent-worker: ignoring ${what} ${runId ? `from run ${runId}, which has left this worker` : "that belongs to no run"}`);
      return;
    }
    log.error({ runId: run.runId, fn: run.functionName, err: error }, `agent-worker: run ${run.runId} fails because of ${what}`);
    const status = run.controller.rt.signal.aborted ? "cancelled" : "failed";
    finish(run, { type: "run.finished", runId: run.runId, status, error: runErrorOf(error, run.functionName) });
    run.controller.cancel("The run failed.");
  } catch (err) {
    log.error({ err }, "agent-worker: could not handle a stray error");
  }
}

function retire(reason: string): void {
  if (retiring) return;
  retiring = true;
  send({ type: "worker.retiring", reason });
}

installRunScopes(onFault);
process.on("uncaughtException", (err) => onFault(err, currentScope(), "exception"));
process.on("unhandledRejection", (reason) => onFault(reason, currentScope(), "rejection"));

process.on("message", (raw) => {
  const parsed = ParentToChildSchema.safeParse(raw);
  if (!parsed.success) {
    log.error(`agent-worker: ignoring an invalid message: ${describeZodError(parsed.error)}`);
    return;
  }
  const msg = parsed.data;
  const run = "runId" in msg ? runs.get(msg.runId) : undefined;
  const controller = run?.controller;
  switch (msg.type) {
    case "run.start":
      void startRun(msg);
      break;
    case "question.settled":
      controller?.settle(msg.questionId, { outcome: msg.outcome, value: msg.value, feedback: msg.feedback, ...(msg.input && { input: msg.input }) });
      break;
    case "question.refused":
      controller?.refuse(msg.questionId, msg.error);
      break;
    case "call.settled":
      controller?.settleCall(msg.seq, { status: msg.status, result: msg.result, error: msg.error });
      break;
    case "run.cancel":
      controller?.cancel(msg.reason);
      break;
    case "run.park": {
      const parked = controller ? controller.park() : true;
      if (parked && run) leave(run);
      send({ type: "run.parked", runId: msg.runId, parked });
      break;
    }
  }
});

/** How long the MCP servers' connections may take to close when the worker goes. */
const MCP_CLOSE_MS = 2_000;

// The parent going away means nobody can answer: leave rather than linger as an orphan (the
// agent's MCP servers closed first, so a stdio server does not outlive its worker).
process.on("disconnect", () => {
  const closing = closeAgentMcp().catch((err: unknown) => log.error({ err }, "agent-worker: could not close the MCP servers"));
  void Promise.race([closing, new Promise((r) => setTimeout(r, MCP_CLOSE_MS))]).finally(() => process.exit(0));
});
// Ctrl-C or a signal to the whole process group reaches workers too; the server decides when
// they end (it detaches its runs first, so they resume after a restart instead of failing).
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

// Beside this file: workers/functions as TypeScript in development, dist/functions once built;
// then the test probes (PARLEY_TEST_FUNCTIONS=1) and any folders PARLEY_FUNCTION_DIRS names.
const here = path.dirname(fileURLToPath(import.meta.url));
const functionDirs = [
  path.join(here, "functions"),
  ...(process.env.PARLEY_TEST_FUNCTIONS === "1" ? [path.join(here, "test-functions")] : []),
  ...(process.env.PARLEY_FUNCTION_DIRS ?? "")
    .split(path.delimiter)
    .filter(Boolean)
    .map((d) => path.resolve(d)),
];
const catalogue = await loadFunctionFiles(functionDirs, { root: process.cwd() });
useCatalogue(catalogue);
send({ type: "worker.ready", pid: process.pid, functions: describeCatalogue(catalogue), failures: [...catalogue.failures] });
// Runs that parked leave their garbage behind: collected once this worker is quiet.
startIdleCollection();
