/**
 * Agent worker: a child process that runs one agent function at a time for the server.
 * Everything it receives is validated against the IPC union; answers arrive on the answer
 * queue (`question.settled`) keyed by question id.
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
  const controller = createRuntime({ runId: msg.runId, sessionId: msg.sessionId, canAsk: msg.canAsk, send });
  runs.set(msg.runId, controller);
  try {
    const result = await fn.run(controller.rt, msg.input);
    send({ type: "run.finished", runId: msg.runId, status: "succeeded", result: result ?? null });
  } catch (err) {
    const status = controller.rt.signal.aborted ? "cancelled" : "failed";
    send({ type: "run.finished", runId: msg.runId, status, error: errorInfo(err) });
  } finally {
    runs.delete(msg.runId);
  }
}

process.on("message", (raw) => {
  const parsed = ParentToChildSchema.safeParse(raw);
  if (!parsed.success) {
    console.error(`agent-worker: ignoring an invalid message: ${describeZodError(parsed.error)}`);
    return;
  }
  const msg = parsed.data;
  switch (msg.type) {
    case "run.start":
      void startRun(msg);
      break;
    case "question.settled":
      runs.get(msg.runId)?.settle(msg.questionId, { outcome: msg.outcome, value: msg.value, feedback: msg.feedback });
      break;
    case "run.cancel":
      runs.get(msg.runId)?.cancel(msg.reason);
      break;
  }
});

// The parent going away means nobody can answer: leave rather than linger as an orphan.
process.on("disconnect", () => process.exit(0));

send({ type: "worker.ready", pid: process.pid });
