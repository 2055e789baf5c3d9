import { newOrderedId } from "../ids";
import { AppError, describeZodError } from "../../protocol/errors";
import type { Run, RunStarter, StartedRun } from "../../protocol/entities";
import { buildReceipt, type StartRunReceipt } from "../../protocol/commands";
import { RunPolicySchema, type RunPolicyInput } from "../../protocol/policy";
import type { SqlTx } from "../store/sql-executor";
import type { RunStore } from "../store/runs/run-store";
import type { LiveRuns } from "./live-runs";
import type { RunServiceDeps } from "./run-service-deps";

export interface StartRunRequest {
  sessionId: string;
  functionName: string;
  input?: unknown;
  canAsk?: boolean;
  policy?: RunPolicyInput;
  commandId?: string;
  /** A chat turn of this session: refused with session_busy while another turn is active. */
  turnOf?: string;
  /** Started through the REST API or the CLI (shown in the transcript). */
  startedBy?: RunStarter;
  /** The person who starts it: they may stop it (beside the chat's owner and administrators). */
  starterId?: string;
  /** Writes what belongs to the same command (a chat message) in the run's transaction; it gets the new run's id. */
  alongWith?: (tx: SqlTx, runId: string) => Promise<unknown>;
  /** Announces what `alongWith` wrote, once it has committed and before the run is announced. */
  committed?: () => void;
  /** The session's owner, when the caller has just read it (owners never change): one read fewer. */
  sessionOwnerId?: string;
}

/** Starts a run (idempotent by commandId): stored with what belongs to its command, then activated. */
export type StartRun = (request: StartRunRequest) => Promise<StartedRun>;

export interface RunStartingDeps {
  store: RunStore;
  live: Pick<LiveRuns, "activate">;
  sessions: RunServiceDeps["sessions"];
  commands: RunServiceDeps["commands"];
  events: RunServiceDeps["events"];
  metrics: RunServiceDeps["metrics"];
  hasFunction: RunServiceDeps["hasFunction"];
}

export function createStartRun({ store, live, sessions, commands, events, metrics, hasFunction }: RunStartingDeps): StartRun {
  return async function startRun({ sessionId, functionName, input = null, canAsk = true, policy = {}, commandId, turnOf, alongWith, committed, startedBy, starterId, sessionOwnerId }) {
    if (!hasFunction(functionName)) throw new AppError("not_found:function", `No agent function named "${functionName}".`);
    const fixedPolicy = RunPolicySchema.safeParse(policy);
    if (!fixedPolicy.success) throw new AppError("invalid_policy", `Invalid policy: ${describeZodError(fixedPolicy.error)}`);
    // A session whose delete began since it was read is refused in the run's own transaction.
    const ownerId = sessionOwnerId ?? (await sessions.ownerOf({ id: sessionId }));
    try {
      JSON.stringify(input ?? null);
    } catch {
      throw new AppError("bad_request", "The run input must be plain JSON.");
    }
    let started: Run | undefined;
    const receipt = await commands.run<StartRunReceipt>(
      { commandId, kind: "start_run", payload: { sessionId, functionName, input: input ?? null, canAsk, policy: fixedPolicy.data } },
      async ({ commandId: cid, record }) => {
        const created = metrics?.time("run.create");
        const id = newOrderedId();
        const r = buildReceipt<StartRunReceipt>({ commandId: cid, kind: "start_run", apply_state: "applied", runId: id });
        started = await store.create(
          { id, sessionId, ownerId, functionName, input, policy: fixedPolicy.data, canAsk, turnOf, startedBy, starterId },
          async (tx) => {
            await alongWith?.(tx, id);
            await record(tx, r);
          },
          // The worker starts while the commit is made durable: what the run does is stored after it (in WAL order) and
          // seen once that is durable too. The run and its turn are announced once durable.
          (run) => live.activate(id, run),
        );
        committed?.();
        events.emit("run.updated", started);
        created?.();
        return r;
      },
    );
    // A repeated command answers with its first run as it is now.
    return { ...(started ?? (await store.get(receipt.runId))), receipt };
  };
}
