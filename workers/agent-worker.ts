/**
 * Agent worker: a child process that runs agent functions for the server, one run at a time.
 * Everything it receives is validated against the IPC union; answers arrive on the answer
 * queue (`question.settled`) keyed by question id. A run that only waits can be parked: the
 * worker lets go of it and the server resumes it later, here or elsewhere, from its journal.
 */
import { ChildToParentSchema, ParentToChildSchema, type ChildToParent, type ParentToChild } from "../lib/protocol/ipc";
import { describeZodError } from "../lib/protocol/errors";
import { findAgentFunction } from "./functions";
import { createRuntime, type RunController } from "./runtime";

if (!process.send) {
  console.error("agent-worker must be started by the Parley server (fork with IPC).");
  process.exit(1);
}

const runs = new Map<string, RunController>();

function send(message: ChildToParent): void {
  const checked = ChildToParentSchema.safeParse(message);
  if (!checked.success) throw new Error(`Refusing to send an invalid IPC message: ${describeZodError(checked.error)}`);
  process.send!(checked.data);
}

function errorInfo(err: unknown): { code: string; message: string } {
  if (err instanceof Error) {
    const { code } = err as Error & { code?: unknown };
    return { code: typeof code === "string" ? code : "agent_error", message: err.message || err.name };
  }
  return { code: "agent_error", message: String(err) };
}

async function startRun(msg: Extract<ParentToChild, { type: "run.start" }>): Promise<void> {
  const fn = findAgentFunction(msg.functionName);
  if (!fn) {
    send({ type: "run.finished", runId: msg.runId, status: "failed", error: { code: "not_found:function", message: `No agent function named "${msg.functionName}".` } });
    return;
  }
  const controller = createRuntime({ runId: msg.runId, sessionId: msg.sessionId, canAsk: msg.canAsk, journal: msg.journal, send });
  runs.set(msg.runId, controller);
  let outcome: ChildToParent;
  try {
    const result = await fn.run(controller.rt, msg.input);
    outcome = { type: "run.finished", runId: msg.runId, status: "succeeded", result: result ?? null };
  } catch (err) {
    const status = controller.rt.signal.aborted ? "cancelled" : "failed";
    outcome = { type: "run.finished", runId: msg.runId, status, error: errorInfo(err) };
  } finally {
    if (runs.get(msg.runId) === controller) runs.delete(msg.runId);
  }
  if (controller.isParked()) return;
  const divergence = controller.divergence();
  if (divergence) outcome = { type: "run.finished", runId: msg.runId, status: "failed", error: errorInfo(divergence) };
  send(outcome);
}

process.on("message", (raw) => {
  const parsed = ParentToChildSchema.safeParse(raw);
  if (!parsed.success) {
    console.error(`agent-worker: ignoring an invalid message: ${describeZodError(parsed.error)}`);
    return;
  }
  const msg = parsed.data;
  const run = "runId" in msg ? runs.get(msg.runId) : undefined;
  switch (msg.type) {
    case "run.start":
      void startRun(msg);
      break;
    case "question.settled":
      run?.settle(msg.questionId, { outcome: msg.outcome, value: msg.value, feedback: msg.feedback });
      break;
    case "question.refused":
      run?.refuse(msg.questionId, msg.error);
      break;
    case "call.settled":
      run?.settleCall(msg.seq, { status: msg.status, result: msg.result, error: msg.error });
      break;
    case "run.cancel":
      run?.cancel(msg.reason);
      break;
    case "run.park": {
      const parked = run ? run.park() : true;
      if (parked) runs.delete(msg.runId);
      send({ type: "run.parked", runId: msg.runId, parked });
      break;
    }
  }
});

// The parent going away means nobody can answer: leave rather than linger as an orphan.
process.on("disconnect", () => process.exit(0));
// Ctrl-C or a signal to the whole process group reaches workers too; the server decides when
// they end (it detaches its runs first, so they resume after a restart instead of failing).
process.on("SIGINT", () => {});
process.on("SIGTERM", () => {});

send({ type: "worker.ready", pid: process.pid });
