import { newOrderedId } from "../ids";
import type { Run } from "../../protocol/entities";
import type { ChildToParent } from "../../protocol/ipc";
import type { DomainEvents } from "../events";
import type { RunStore } from "./run-store";
import type { RunSupervisor } from "./run-supervisor";
import type { HeldEpoch } from "../cluster/lease-fence";

/** A run asked for a child run (`rt.call`): store it with the parent's journal entry (fenced by the parent's lease `epoch`), then start it. */
export async function startChildRun(
  deps: { store: RunStore; events: DomainEvents; hasFunction: (name: string) => boolean; activate: (runId: string) => void; deliverToParent: (child: Run) => Promise<void> },
  parent: Run,
  message: Extract<ChildToParent, { type: "run.call" }>,
  epoch: HeldEpoch,
): Promise<void> {
  const childId = newOrderedId();
  const known = deps.hasFunction(message.functionName);
  await deps.store.createChild({ parent, childId, seq: message.seq, digest: message.digest, functionName: message.functionName, input: message.input, known }, epoch);
  const child = await deps.store.get(childId);
  deps.events.emit("run.updated", child);
  if (known) deps.activate(childId);
  else await deps.deliverToParent(child);
}

/** A child run ended: the `call` waiting for it gets the result, resuming the parent if it was parked. */
export async function notifyParent(deps: { store: RunStore; activate: (runId: string) => void; supervisorOf: (runId: string) => RunSupervisor | undefined }, child: Run): Promise<void> {
  const parentId = child.parentRunId!;
  const supervisor = deps.supervisorOf(parentId);
  if (!supervisor) return deps.activate(parentId);
  const seq = await deps.store.parentSeqOf(child.id);
  if (seq !== null) supervisor.deliverCall(child, seq);
}
