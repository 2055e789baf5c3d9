import { newOrderedId } from "../ids";
import { AppError, describeZodError } from "../../protocol/errors";
import { stoppedBy } from "../../protocol/audit";
import { ACTIVE_RUN_STATUSES, type Run, type RunDetail, type RunStarter, type StartedRun } from "../../protocol/entities";
import { buildReceipt, buildStopReceipt, commandPayload, type StartRunReceipt, type StopOutcome, type StopReceipt, type StoppedRun } from "../../protocol/commands";
import { RunPolicySchema, type RunPolicyInput } from "../../protocol/policy";
import type { Question } from "../../protocol/question";
import type { SettlementMessage } from "../../protocol/ipc";
import type { Clock } from "../clock";
import type { CommandService } from "../ledger/command-ledger";
import type { Db } from "../store/db/client";
import type { SqlTx } from "../store/sql-executor";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import type { QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import type { WorkerPoolPort } from "../workers/worker-port";
import { loadRunDetail } from "./run-detail";
import { createRunStore } from "../store/runs/run-store";
import { RunSupervisor, type RunEnd, type SupervisorContext } from "./run-supervisor";
import { noLeases, type RunLeases } from "../cluster/run-leases";
import type { ClusterLink } from "../cluster/cluster-link";
import type { ClusterMessage } from "../../protocol/cluster";
import { log } from "../log";

export interface RunServiceDeps {
  db: Db;
  events: DomainEvents;
  sessions: SessionService;
  questions: QuestionService;
  commands: CommandService;
  pool: WorkerPoolPort;
  clock: Clock;
  /** Names of the agent functions a run may start. */
  hasFunction: (name: string) => boolean;
  /** How long a stopped worker may take to finish before it is killed. */
  stopGraceMs?: number;
  /** How long a run may wait in its worker before it is parked, while the pool has room. */
  parkAfterMs?: number;
  /** How often a run may lose its worker while working before it fails. */
  maxWorkerLosses?: number;
  /** Counts parked runs. */
  metrics?: Pick<Metrics, "runParked" | "time"> & Partial<Pick<Metrics, "runTakenOver">>;
  /** Which node executes which run (several nodes on one database); one node executes everything by default. */
  leases?: RunLeases;
  /** How this node tells the node that executes a run about it. */
  cluster?: Pick<ClusterLink, "publish" | "on">;
}

interface StartRunRequest {
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

/** A message for whichever node executes the run, once it is known (an activation found it held elsewhere). */
type ForOwner = (owner: string) => ClusterMessage;

/** A settlement that reached this node, for the node that executes its run. */
const settlementFor = (owner: string, s: SettlementMessage): ClusterMessage =>
  s.type === "question.settled" ? { type: "run.deliver", to: owner, runId: s.runId, questionId: s.questionId } : { type: "run.child_ended", to: owner, runId: s.runId, childRunId: s.childRunId };

/**
 * Durable runs of agent functions. A run is a database record with a journal; a worker process is
 * lent to it only while it has work to do. Each live run has one supervisor (its state machine);
 * this service starts them, routes answers, child results and stops to them, and parks waiting
 * runs when other runs need their workers.
 */
export function createRunService(deps: RunServiceDeps) {
  const { db, events, sessions, questions, commands, pool, hasFunction } = deps;
  const leases = deps.leases ?? noLeases();
  const { leaseMs } = leases;
  const store = createRunStore(db, leases);
  const live = new Map<string, RunSupervisor>();
  let closed = false;

  const ctx: SupervisorContext = {
    ...deps,
    store,
    leases,
    stopGraceMs: deps.stopGraceMs ?? 3_000,
    parkAfterMs: deps.parkAfterMs ?? 3_000,
    maxWorkerLosses: deps.maxWorkerLosses ?? 3,
    workersWanted: () => pool.queued > 0,
    /** A run asked for a child run (`rt.call`): store it with the parent's journal entry (fenced by the parent's lease `epoch`), then start it. */
    async startChild(parent, message, epoch) {
      const childId = newOrderedId();
      const known = hasFunction(message.functionName);
      const child = await store.createChild({ parent, childId, seq: message.seq, digest: message.digest, functionName: message.functionName, input: message.input, known }, epoch);
      events.emit("run.updated", child);
      if (known) activate(childId);
      else await deliverToParent(child);
    },
    left(supervisor) {
      if (live.get(supervisor.runId) === supervisor) live.delete(supervisor.runId);
    },
    async finished(run, byStop) {
      if (run.status === "failed") {
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.id, role: "system", text: `Run ${run.functionName} failed: ${run.error}` });
      } else if (run.status === "cancelled" && byStop && !run.parentRunId) {
        await sessions.addMessage({ sessionId: run.sessionId, runId: run.id, role: "system", text: run.error ?? "Stopped." });
      }
      // Nothing of a run outlives it: children it no longer waits for are stopped with it.
      await Promise.all((await store.activeChildIds(run.id)).map((childId) => stopNow(childId, "Its parent run ended.")));
      if (run.parentRunId) await deliverToParent(run);
    },
    activate: (runId) => activate(runId),
    metrics: deps.metrics ?? { time: () => () => {} },
  };

  /** A child run ended: the `call` waiting for it gets the result, resuming the parent if it was parked (`tell`: as for activate). */
  async function notifyParent(child: Run, tell?: ForOwner): Promise<void> {
    const parentId = child.parentRunId!;
    const supervisor = live.get(parentId);
    if (!supervisor) return activate(parentId, undefined, tell);
    const seq = await store.parentSeqOf(child.id);
    if (seq !== null) supervisor.deliverCall(child, seq);
  }

  const deliverToParent = (child: Run) => notifyParent(child, (to) => ({ type: "run.child_ended", to, runId: child.parentRunId!, childRunId: child.id }));

  /**
   * Starts a run in a worker, or resumes a parked one there by replaying its journal. A no-op for a
   * live run. `fresh`: the run just stored, not read again. `tell`: what to send the node that
   * executes the run, when that is another node.
   */
  function activate(runId: string, fresh?: Run, tell?: ForOwner): void {
    if (closed || live.has(runId)) return;
    const supervisor = new RunSupervisor(runId, ctx, fresh);
    live.set(runId, supervisor);
    void supervisor.ended.then((end) => {
      if (end.how === "parked") deps.metrics?.runParked();
      else if (end.how === "elsewhere" && end.owner) {
        const owner = end.owner;
        if (tell) deps.cluster?.publish(tell(owner));
        for (const s of end.missed) deps.cluster?.publish(settlementFor(owner, s));
      }
    });
    supervisor.begin();
  }

  /** Runs queue for a worker: the run that has waited longest lets go of its worker. */
  function parkOldestWaiting() {
    let oldest: RunSupervisor | undefined;
    for (const s of live.values()) {
      if (s.state === "waiting" && (!oldest || s.waitingSince < oldest.waitingSince)) oldest = s;
    }
    oldest?.parkNow();
  }
  pool.on("pressure", parkOldestWaiting);

  /** The answer queue: the settle path hands each settled question to its run. */
  function deliverQuestion(question: Question): void {
    const supervisor = live.get(question.runId);
    if (supervisor) supervisor.deliverQuestion(question);
    else if (question.status !== "cancelled" && question.status !== "expired") {
      const deliver = { type: "run.deliver", runId: question.runId, questionId: question.id, question } as const;
      // Another node may execute it: told at once. If it is parked, the lease lets this node (or the one it raced) wake it.
      if (leases.enabled) deps.cluster?.publish({ ...deliver, to: null });
      activate(question.runId, undefined, (to) => ({ ...deliver, to }));
    }
  }

  /**
   * Stops a run; resolves once it and its child runs have ended. The run is told first, so a child's
   * end cannot reach it as a failed call before it knows it is stopping; its children follow it.
   */
  async function stopNow(id: string, reason = "The run was stopped."): Promise<{ run: Run; outcome: Exclude<StopOutcome, "queued"> }> {
    const current = await store.get(id);
    if (!ACTIVE_RUN_STATUSES.includes(current.status)) return { run: current, outcome: "already_ended" };
    let end: RunEnd;
    do {
      let epoch: number | null = null;
      if (!live.has(id)) {
        // Another node executes it: that node stops it.
        const took = await leases.take(id);
        if (!took.ok) return stopElsewhere(id, took.owner, reason);
        epoch = took.epoch;
      }
      let supervisor = live.get(id);
      if (!supervisor) {
        // A parked run: a supervisor without a worker decides its end (holding the lease just taken), so no activation races it.
        supervisor = new RunSupervisor(id, ctx, undefined, epoch);
        live.set(id, supervisor);
      }
      end = await supervisor.stop(reason);
    } while ((end.how === "parked" || end.how === "elsewhere") && !closed);
    const run = await store.get(id);
    return { run, outcome: end.how === "finished" && end.byStop ? "stopped" : "finished_first" };
  }

  /**
   * Stops a run another node executes: that node is told (again each second, in case a message was
   * lost), and the run's end is awaited in the database. If that node dies meanwhile, its lease
   * lapses and this node takes the run and stops it itself.
   */
  async function stopElsewhere(id: string, owner: string, reason: string): Promise<{ run: Run; outcome: Exclude<StopOutcome, "queued"> }> {
    // Wall time: this waits on another process, whatever clock the run's timers use.
    const deadline = Date.now() + leaseMs + (deps.stopGraceMs ?? 3_000) + 5_000;
    let told = -Infinity;
    while (Date.now() < deadline && !closed) {
      const run = await store.get(id);
      if (!ACTIVE_RUN_STATUSES.includes(run.status)) return { run, outcome: run.status === "cancelled" ? "stopped" : "finished_first" };
      if (Date.now() - told >= 1_000) {
        const took = await leases.take(id);
        if (took.ok) return stopNow(id, reason);
        deps.cluster?.publish({ type: "run.stop", to: took.owner, runId: id, reason });
        told = Date.now();
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new AppError("unavailable", `Run ${id} is executed by another server (${owner}) that did not stop it in time; try again.`);
  }

  // ---- several nodes -------------------------------------------------------------------------

  /** What other nodes send about the runs this node executes. */
  const offCluster = deps.cluster?.on((message) => {
    const failed = (err: unknown) => log.error({ runId: "runId" in message ? message.runId : undefined, err }, `[runs] could not handle ${message.type} from another node`);
    switch (message.type) {
      case "run.deliver": {
        const supervisor = live.get(message.runId);
        // Not live here: said to all, it is not this node's; said to this node, the run parked meanwhile, and taking it wakes it.
        if (!supervisor) return message.to === null ? undefined : activate(message.runId);
        if (message.question) return supervisor.deliverQuestion(message.question);
        questions.getQuestion({ id: message.questionId }).then((q) => supervisor.deliverQuestion(q), failed);
        return;
      }
      case "run.child_ended":
        store.get(message.childRunId).then((child) => notifyParent(child), failed);
        return;
      case "run.stop":
        stopNow(message.runId, message.reason).catch(failed);
        return;
      // Not about runs: the access and question services listen for these.
      case "api-token.revoked":
      case "cookies.revoked":
      case "people.changed":
      case "question.expiring":
        return;
    }
  });

  /** Runs whose node died (their lease lapsed), or that were woken and then left by a dying node: taken over by replay. */
  async function takeOver(): Promise<void> {
    for (const { id, lapsed } of await leases.orphans()) {
      if (closed || live.has(id)) continue;
      // Woken while parked, but a child it calls is still active: it only waits, and stays parked.
      if (!lapsed && (await store.isBlocked(id))) continue;
      deps.metrics?.runTakenOver?.();
      activate(id);
    }
  }

  const loops: NodeJS.Timeout[] = [];
  if (leases.enabled) {
    const renew = () =>
      leases.renew().then(
        (lost) => lost.forEach((id) => live.get(id)?.abandon()),
        (err) => log.error({ err }, "[runs] lease renewal failed"),
      );
    const sweep = () => takeOver().catch((err) => log.error({ err }, "[runs] takeover sweep failed"));
    loops.push(setInterval(() => void renew(), Math.max(50, leaseMs / 3)));
    // Nodes sweep at slightly different rhythms; the take decides anyway.
    loops.push(setInterval(() => void sweep(), Math.max(100, leaseMs / 2 + Math.random() * (leaseMs / 4))));
    for (const loop of loops) loop.unref();
  }

  async function startRun({
    sessionId,
    functionName,
    input = null,
    canAsk = true,
    policy = {},
    commandId,
    turnOf,
    alongWith,
    committed,
    startedBy,
    starterId,
    sessionOwnerId,
  }: StartRunRequest): Promise<StartedRun> {
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
        const created = deps.metrics?.time("run.create");
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
          (run) => activate(id, run),
        );
        committed?.();
        events.emit("run.updated", started);
        created?.();
        return r;
      },
    );
    // A repeated command answers with its first run as it is now.
    return { ...(started ?? (await store.get(receipt.runId))), receipt };
  }

  return {
    store,
    startRun,
    activate,
    deliverQuestion,
    getRun: ({ id }: { id: string }) => store.get(id),
    listRuns: ({ sessionId }: { sessionId: string }) => store.listBySession(sessionId),
    getRunDetail: ({ id }: { id: string }): Promise<RunDetail> => loadRunDetail(db, questions, id),

    /** Stops a run (idempotent by commandId); the receipt says whether the stop or the run's own end came first. */
    async stopRun({ id, commandId, by = "rest" }: { id: string; commandId?: string; by?: Parameters<typeof stoppedBy>[0] }): Promise<StoppedRun> {
      await store.get(id);
      const receipt = await commands.run<StopReceipt>({ commandId, kind: "stop_run", payload: commandPayload("stop_run", { runId: id }) }, async ({ commandId: cid, commit }) => {
        const { outcome } = await stopNow(id, stoppedBy(by));
        const r = buildStopReceipt({ commandId: cid, runId: id, outcome });
        await commit(r);
        return r;
      });
      return { ...(await store.get(id)), receipt };
    },

    /**
     * Stops every active run of a session (its delete) and resolves once all have ended; their
     * questions are cancelled on the way (retracted in every tab). Runs a child start slips in
     * meanwhile are stopped by the next round; the session's mark keeps new ones out.
     */
    async stopSessionRuns({ sessionId, reason }: { sessionId: string; reason: string }): Promise<void> {
      for (let round = 0; round < 10; round++) {
        const active = await store.listActiveInSession(sessionId);
        if (active.length === 0) {
          // Ended in the database, a run's supervisor may still be finishing (its announcement, its
          // end's messages): what follows (deleting the chat) waits until it has let go.
          await Promise.all([...live.values()].filter((s) => s.sessionId === sessionId && s.finishing).map((s) => s.ended));
          return;
        }
        const ids = new Set(active.map((r) => r.id));
        // The roots of what is active: stopping a run stops its children after it.
        const roots = active.filter((r) => !r.parentRunId || !ids.has(r.parentRunId));
        await Promise.all(roots.map((r) => stopNow(r.id, reason)));
      }
    },

    /** At start-up: pending questions get their expiry timers again; runs that were working resume by replay, waiting runs stay parked unless what they waited for has arrived. */
    async recoverAfterRestart(): Promise<{ resumed: number; parked: number; questions: number }> {
      await questions.rescheduleExpiries();
      const active = await store.listActive();
      let resumed = 0;
      for (const run of active) {
        if (run.status === "running" || !(await store.isBlocked(run.id))) {
          resumed++;
          activate(run.id);
        }
      }
      return { resumed, parked: active.length - resumed, questions: (await questions.listPending()).length };
    },

    /** Live runs by state (health checks and tests). */
    liveCount: () => live.size,
    liveStates: () => Object.fromEntries([...live.values()].map((s) => [s.runId, s.state])),

    /** Lets go of every live run without ending it: the next start-up (or another node, at once) resumes them from their journals. */
    detachAll(): void {
      closed = true;
      for (const loop of loops) clearInterval(loop);
      offCluster?.();
      pool.off("pressure", parkOldestWaiting);
      for (const supervisor of live.values()) supervisor.detach();
      live.clear();
    },

    /** After detachAll and once the workers are gone: the leases held lapse now, so other nodes take those runs over at once. */
    handOver: (): Promise<void> => leases.lapseAll().catch((err) => log.error({ err }, "[runs] could not hand the leases over")),
  };
}

export type RunService = ReturnType<typeof createRunService>;
