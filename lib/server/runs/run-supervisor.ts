import { AppError } from "../../protocol/errors";
import type { FinalRunStatus, Run } from "../../protocol/entities";
import type { ChildToParent, JournalRecord, ParentToChild, RunFinishedMessage, SettlementMessage } from "../../protocol/ipc";
import type { JsonValue, Question } from "../../protocol/question";
import type { Clock } from "../clock";
import type { DomainEvents } from "../events";
import type { Metrics } from "../metrics";
import type { QuestionService } from "../questions/question-service";
import type { SessionService } from "../sessions/session-service";
import type { WorkerExit, WorkerHandle, WorkerPoolPort } from "../workers/worker-port";
import { ActiveClock } from "./active-clock";
import { RunEventChain } from "./run-event-chain";
import { checkMove, holdsWorker, isGone, type EndHow, type RunState, type RunStateKind, type StateOf, type StopIntent, type WorkerLink, type WorkerState } from "./run-lifecycle";
import type { FinalOutcome, RunStore } from "../store/runs/run-store";
import type { SqlTx } from "../store/sql-executor";
import type { LeaseTake, RunLeases } from "../cluster/run-leases";
import { isRunLeaseLost, type HeldEpoch } from "../cluster/lease-fence";
import { log } from "../log";

/**
 * How a live run ended its turn here: it reached its final state, it was parked to wait without a
 * worker, or another node executes it (`owner`; null when this node lost the run's lease), which
 * must hear the settlements that reached this node meanwhile (`missed`).
 */
export type RunEnd = { how: "finished"; status: FinalRunStatus; byStop: boolean } | { how: "parked" } | { how: "elsewhere"; owner: string | null; missed: SettlementMessage[] };

/** What a supervisor needs from the rest of the server. */
export interface SupervisorContext {
  store: RunStore;
  /** Which node executes a run (several nodes on one database). */
  leases: Pick<RunLeases, "enabled" | "take" | "release" | "freshEpoch">;
  questions: Pick<QuestionService, "create" | "closeForRun">;
  sessions: Pick<SessionService, "addMessage" | "streamReply" | "endStreams">;
  events: DomainEvents;
  pool: WorkerPoolPort;
  clock: Clock;
  hasFunction(name: string): boolean;
  stopGraceMs: number;
  parkAfterMs: number;
  /** How often a run may lose its worker while working before it fails instead of being replayed. */
  maxWorkerLosses: number;
  /** Runs wait for a worker: a run that only waits should let go of its worker now. */
  workersWanted(): boolean;
  /** Stores a child run with the parent's journal entry, fenced by the parent's lease epoch, and starts it. */
  startChild(parent: Run, message: Extract<ChildToParent, { type: "run.call" }>, epoch: HeldEpoch): Promise<void>;
  /** The run left the live set (parked or finished): later events go to a new supervisor. */
  left(supervisor: RunSupervisor): void;
  /** The run reached its final state in the database (once). */
  finished(run: Run, byStop: boolean): Promise<void>;
  /** Something for this run arrived after it was parked: load it again. */
  activate(runId: string): void;
  /** Times a run's load and its questions' storing. */
  metrics: Pick<Metrics, "time">;
}

/** An end that a stop decided, or the run's (or the server's) own. */
const endOf = (byStop: boolean): EndHow => ({ by: byStop ? "stop" : "run_end", byStop });

/** A worker message of one kind. */
type MessageOf = { [M in ChildToParent as M["type"]]: M };
/** One handler per kind of worker message: a kind without one does not compile. */
type MessageHandlers = { [K in keyof MessageOf]: (message: MessageOf[K], state: WorkerState) => Promise<void> | void };

function dispatch<K extends keyof MessageOf>(handlers: MessageHandlers, message: MessageOf[K] & { type: K }, state: WorkerState): Promise<void> | void {
  return handlers[message.type](message, state);
}

/** How long a failed database write of the supervisor waits before its next try: doubling from 0.5 s, at most 30 s. */
const retryDelay = (tries: number) => Math.min(30_000, 500 * 2 ** tries);

/**
 * One live run: its worker, the IPC it speaks, its timers, and one explicit state that carries its
 * data. Every event (a worker message, an answer, a stop, a park, a timer, the worker's exit) is
 * handled in order on one chain, as a move from a named state; the run's final state is decided once.
 */
export class RunSupervisor {
  private current: RunState;
  /** Every event is handled on it, in order; the server's shutdown stops it (the next start resumes the run). */
  private readonly chain = new RunEventChain((err) => this.failed(err));
  private run!: Run;
  private losses = 0;
  private readonly active: ActiveClock;
  /**
   * The lease epoch this node's take set (or the insert of a fresh run): every write for the run
   * holds only while the run's epoch is still this one. Null until taken, and where runs are not leased.
   */
  private epoch: number | null;
  private resolveEnd!: (end: RunEnd) => void;
  readonly ended: Promise<RunEnd> = new Promise((resolve) => (this.resolveEnd = resolve));

  constructor(
    readonly runId: string,
    private readonly ctx: SupervisorContext,
    /** The run as it was just stored: its first load needs no reads (no row to fetch, an empty journal) and no attempt to count. */
    fresh?: Run,
    /** The epoch of the lease the caller took for this supervisor (a stop of a parked run). */
    held: number | null = null,
  ) {
    this.current = { kind: "starting", missed: [], fresh };
    this.epoch = fresh ? ctx.leases.freshEpoch : held;
    this.active = new ActiveClock(
      ctx.clock,
      () => this.run.policy.maxActiveMs,
      () => {
        const seconds = Math.round(this.run.policy.maxActiveMs / 100) / 10;
        this.enqueue(() => this.interrupt({ status: "failed", byStop: false, reason: `It ran for more than its execution time limit of ${seconds} s (time waiting for a person is not counted).` }));
      },
    );
  }

  // ---- events from outside -------------------------------------------------------------------

  /** Gets a worker and starts (or replays) the run in it; `tries` counts loads the database failed. */
  begin(tries = 0): void {
    const acquired = this.ctx.metrics.time("run.acquire");
    this.ctx.pool.acquire().then(
      (w) => (acquired(), this.enqueue(() => this.attach(w, tries))),
      (err) => this.enqueue(() => this.noWorker(err)),
    );
  }

  deliverQuestion(question: Question): void {
    this.deliver({
      type: "question.settled",
      runId: this.runId,
      questionId: question.id,
      outcome: question.status === "pending" ? "cancelled" : question.status,
      value: question.answer,
      feedback: question.feedback,
      ...(question.editedInput && { input: question.editedInput as Record<string, JsonValue> }),
    });
  }

  deliverCall(child: Run, seq: number): void {
    this.deliver({
      type: "call.settled",
      runId: this.runId,
      seq,
      childRunId: child.id,
      status: child.status as FinalRunStatus,
      result: (child.result ?? null) as JsonValue,
      error: child.error,
    });
  }

  /** The kind of state the run is in (health checks, tests, and which run parks first). */
  get state(): RunStateKind {
    return this.current.kind;
  }

  /** When the run began to wait, while it waits (the oldest waiting run is parked first). */
  get waitingSince(): number {
    return this.current.kind === "waiting" ? this.current.since : 0;
  }

  /** The run's session, once the run is loaded. */
  get sessionId(): string | null {
    return this.run?.sessionId ?? null;
  }

  /** Its end is decided and being recorded: it lets go once that is done. */
  get finishing(): boolean {
    return this.current.kind === "finished";
  }

  /** Ends the run (cancelled, or failed for a reason of the server's); resolves when it has ended or parked first. */
  stop(reason: string, status: StopIntent["status"] = "cancelled"): Promise<RunEnd> {
    this.enqueue(() => this.interrupt({ status, reason, byStop: status === "cancelled" }));
    return this.ended;
  }

  /** Lets go of the worker now if the run only waits (workers are wanted elsewhere). */
  parkNow(): void {
    this.enqueue(() => this.park());
  }

  /** This node lost the run's lease (its renewal found another node took it over). */
  abandon(): void {
    this.enqueue(() => {
      if (this.current.kind === "finished" || isGone(this.current)) return;
      this.giveUp();
    });
  }

  /** Server shutdown: let go of everything without ending the run; the next start resumes it. */
  detach(): void {
    this.chain.stop();
    const state = this.current;
    if (state.kind === "waiting") this.ctx.clock.clearTimeout(state.park);
    if (state.kind === "stopping") this.ctx.clock.clearTimeout(state.grace);
    this.active.disarm();
    if (holdsWorker(state)) this.unlisten(state.worker.handle);
  }

  // ---- the chain -----------------------------------------------------------------------------

  private enqueue(work: () => Promise<void> | void, options?: { passesResume?: boolean; atOnce?: boolean }): void {
    this.chain.enqueue(work, options);
  }

  /** The status write of an answer's delivery: later events wait for it, but the worker's lines. */
  private resume(): void {
    this.chain.resume(() => this.syncWaiting());
  }

  private readonly failed = (err: unknown): void => {
    // A write the lease's epoch refused: another node executes the run now.
    if (isRunLeaseLost(err)) return isGone(this.current) ? undefined : this.giveUp();
    log.error({ runId: this.runId, err }, `[runs] ${this.runId}: ${this.current.kind}`);
  };

  /**
   * The only way the state changes: checked against the table. A state that holds a worker listens
   * to it, and the timers a state owns end with it.
   */
  private move(next: RunState): void {
    const from = this.current;
    this.current = checkMove(this.runId, from, next);
    const before = holdsWorker(from) ? from.worker : undefined;
    const after = holdsWorker(next) ? next.worker : undefined;
    if (before !== after) {
      if (before) this.unlisten(before.handle);
      if (after) this.listen(after.handle);
    }
    if (from.kind === "waiting") this.ctx.clock.clearTimeout(from.park);
    if (from.kind === "stopping") this.ctx.clock.clearTimeout(from.grace);
  }

  /**
   * Another node took the run over: this node lets go of it without writing anything more, and
   * its worker is told to cancel what it still does.
   */
  private giveUp(): void {
    this.active.stop();
    const worker = this.worker?.handle;
    // Not live here any more: a worker that arrives for it is given back.
    this.move({ kind: "elsewhere" });
    if (worker) {
      worker.send({ type: "run.cancel", runId: this.runId, reason: "Another server took this run over." });
      this.ctx.pool.release(worker);
    }
    this.ctx.sessions.endStreams(this.runId);
    this.end({ how: "elsewhere", owner: null, missed: [] });
  }

  /** Before this supervisor writes for a run it has not loaded (it ends it): it takes the lease, unless it holds it already or runs are not leased. */
  private async holdLease(): Promise<LeaseTake> {
    if (this.epoch !== null || !this.ctx.leases.enabled) return { ok: true, epoch: this.epoch };
    const took = await this.ctx.leases.take(this.runId);
    if (took.ok) this.epoch = took.epoch;
    return took;
  }

  /** The answer queue's last leg: what the run waited for goes to its worker (or wakes a parked run). */
  private deliver(message: SettlementMessage): void {
    this.enqueue(
      async () => {
        const state = this.current;
        switch (state.kind) {
          case "starting":
            state.missed.push(message);
            return;
          case "working":
          case "waiting":
            this.send(message);
            this.resume();
            return;
          case "parking":
            this.send(message);
            return;
          case "parked":
          case "elsewhere":
            return this.ctx.activate(this.runId);
          case "stopping":
          case "finished":
            return;
          default:
            return state satisfies never;
        }
      },
      { atOnce: true },
    );
  }

  private get worker(): WorkerLink | undefined {
    return holdsWorker(this.current) ? this.current.worker : undefined;
  }

  private send(message: ParentToChild): boolean {
    return this.worker?.handle.send(message) ?? false;
  }

  private readonly onMessage = (message: ChildToParent) => {
    if ("runId" in message && message.runId !== this.runId) return;
    const link = this.worker;
    if (link?.firstReply && (message.type === "question.ask" || message.type === "run.say" || message.type === "run.finished")) {
      link.firstReply();
      link.firstReply = undefined;
    }
    // The run has left its worker: a stop's grace need not kill it (nor the runs beside it).
    if (link && (message.type === "run.finished" || (message.type === "run.parked" && message.parked))) link.left = true;
    this.enqueue(() => this.handleMessage(message), { passesResume: message.type === "run.say" || message.type === "run.say.delta", atOnce: true });
  };

  private readonly onExit = (exit: WorkerExit) => this.enqueue(() => this.workerLost(exit));

  private listen(worker: WorkerHandle) {
    worker.on("message", this.onMessage);
    worker.on("exit", this.onExit);
  }

  private unlisten(worker: WorkerHandle) {
    worker.off("message", this.onMessage);
    worker.off("exit", this.onExit);
  }

  // ---- starting ------------------------------------------------------------------------------

  private async attach(worker: WorkerHandle, tries = 0): Promise<void> {
    const state = this.current;
    if (state.kind !== "starting") return this.ctx.pool.release(worker);
    try {
      await this.load(worker, state);
    } catch (err) {
      // The worker has the run already: its loss is handled as such.
      if (this.current.kind !== "starting") throw err;
      this.ctx.pool.release(worker);
      if (isRunLeaseLost(err)) throw err;
      // The database failed before the worker had the run: give the worker back and try again later.
      const delay = retryDelay(tries);
      log.error({ runId: this.runId, err }, `[runs] could not load run ${this.runId} (try ${tries + 1}); trying again in ${delay} ms`);
      this.ctx.clock.setTimeout(() => this.begin(tries + 1), delay);
    }
  }

  /** Reads the run and its journal, and hands them to the worker: it starts, or replays up to where it was. */
  private async load(worker: WorkerHandle, starting: StateOf<"starting">): Promise<void> {
    const loaded = this.ctx.metrics.time("run.load");
    const { fresh } = starting;
    starting.fresh = undefined;
    // A fresh run was stored with this node's lease; any other is taken first, unless another node executes it.
    if (!fresh) {
      const took = await this.ctx.leases.take(this.runId);
      if (!took.ok) {
        this.ctx.pool.release(worker);
        this.move({ kind: "elsewhere" });
        return this.end({ how: "elsewhere", owner: took.owner, missed: starting.missed });
      }
      this.epoch = took.epoch;
    }
    starting.missed = [];
    // The run, its journal and what it waits on are read at once (a run that ended meanwhile uses none of it).
    const [run, journal, waiting] = fresh ? [fresh, [], null] : await Promise.all([this.ctx.store.find(this.runId), this.ctx.store.loadJournal(this.runId), this.ctx.store.waitingOn(this.runId)]);
    if (!run || (run.status !== "running" && run.status !== "waiting_input")) {
      this.ctx.pool.release(worker);
      // It ended before this node took it: nothing to hold.
      if (!fresh) await this.letGo();
      this.move({ kind: "finished", record: null });
      return this.end({ how: "finished", status: (run?.status as FinalRunStatus | undefined) ?? "cancelled", byStop: false });
    }
    this.run = run;
    this.active.resetTo(run.activeMs);
    if (!this.ctx.hasFunction(run.functionName)) {
      this.ctx.pool.release(worker);
      return this.finalize({ status: "failed", error: `It cannot be resumed: no agent function named "${run.functionName}" exists any more.` }, { by: "restart", questionStatus: "expired" });
    }
    const link: WorkerLink = { handle: worker, left: false };
    let sent = false;
    const handOver = () => {
      this.move({ kind: "working", worker: link });
      this.active.start();
      sent = this.send({
        type: "run.start",
        runId: run.id,
        sessionId: run.sessionId,
        functionName: run.functionName,
        input: run.input ?? null,
        canAsk: run.canAsk,
        journal,
      });
    };
    // A replay is counted first, with the status its questions leave it in; the worker has it as that count is committed, while the commit is synced.
    const marked = waiting ? await this.ctx.store.markAttempt(this.runId, this.epoch, handOver, { waiting: waiting.questions }) : null;
    if (fresh) handOver();
    loaded();
    link.firstReply = this.ctx.metrics.time("worker.first");
    if (!sent) return this.workerLost(worker.exitInfo ?? { code: null, signal: null });
    // A replayed run may wait already (its status is stored: only its time, if it waits); a fresh one has asked nothing yet.
    if (waiting && marked) {
      if (marked.status !== run.status) this.ctx.events.emit("run.updated", marked);
      await this.syncWaiting({ ...waiting, status: marked.status });
      await this.catchUp(journal);
    }
  }

  /**
   * What settled between the journal's read and now is heard here through a notice: from this
   * node in order on the chain, from another node over the bus, which may lose it. With several
   * nodes, whatever the worker was sent open but has settled since is sent again from the database
   * (a settlement the worker already has is ignored there); one node alone needs no second read.
   */
  private async catchUp(sent: JournalRecord[]): Promise<void> {
    if (!this.ctx.leases.enabled) return;
    const open = new Set(sent.filter((e) => (e.kind === "question" || e.kind === "call") && e.settlement === null).map((e) => e.seq));
    if (open.size === 0) return;
    for (const e of await this.ctx.store.loadJournal(this.runId)) {
      if (!open.has(e.seq)) continue;
      if (e.kind === "question" && e.settlement) {
        this.deliver({ type: "question.settled", runId: this.runId, questionId: e.questionId, ...e.settlement });
      } else if (e.kind === "call" && e.settlement) {
        this.deliver({ type: "call.settled", runId: this.runId, seq: e.seq, childRunId: e.childRunId, ...e.settlement });
      }
    }
  }

  private async noWorker(err: unknown): Promise<void> {
    if (this.current.kind !== "starting") return;
    const detail = (err as { detail?: string }).detail;
    log.error({ runId: this.runId, ...(detail ? { detail } : { err }) }, `[runs] no worker for run ${this.runId}`);
    const message = err instanceof Error && err.name === "WorkerStartError" ? err.message : "No worker process could be started.";
    await this.finalize({ status: "failed", error: message }, { by: "run_end" });
  }

  // ---- worker messages -----------------------------------------------------------------------

  private readonly handlers: MessageHandlers = {
    "question.ask": (message, state) => this.asked(message, state),
    "run.say": (message) => this.said(message),
    "run.say.delta": (message) => void this.ctx.sessions.streamReply({ sessionId: this.run.sessionId, runId: this.runId, seq: message.seq, delta: message.delta }),
    "step.record": (message) => this.ctx.store.recordStep({ runId: this.runId, seq: message.seq, name: message.name, digest: message.digest, output: message.output }, this.epoch),
    "run.call": (message, state) => this.called(message, state),
    "run.progress": async (message) => {
      if (await this.ctx.store.setProgress(this.runId, message.text, this.epoch)) this.ctx.events.emit("run.updated", await this.ctx.store.get(this.runId));
    },
    "run.parked": (message, state) => this.parked(message.parked, state),
    "run.finished": (message, state) => this.workerFinished(message, state),
    "worker.ready": () => undefined,
    "worker.retiring": () => undefined,
  };

  private async handleMessage(message: ChildToParent): Promise<void> {
    const state = this.current;
    if (holdsWorker(state)) await dispatch(this.handlers, message, state);
  }

  private async asked(message: MessageOf["question.ask"], state: WorkerState): Promise<void> {
    if (state.kind === "stopping") {
      this.send({ type: "question.settled", runId: this.runId, questionId: message.questionId, outcome: "cancelled", value: null, feedback: "The run is stopping." });
      return;
    }
    const stored = this.ctx.metrics.time("question.create");
    let asked: Question;
    // A run that waits on the question moves to waiting_input in the question's own transaction, its active time stopped as the question is stored.
    let waitingSince: { at: number; run: Run | null } | undefined;
    const whilePending =
      state.kind === "parking"
        ? undefined
        : async (tx: SqlTx) => {
            const at = this.ctx.clock.now();
            waitingSince = { at, run: await this.ctx.store.startWaitingIn(tx, this.runId, this.active.runningUntil(at) ?? 0, this.epoch) };
          };
    try {
      asked = await this.ctx.questions.create({
        id: message.questionId,
        run: { id: this.runId, sessionId: this.run.sessionId, functionName: this.run.functionName, policy: this.run.policy, canAsk: this.run.canAsk, rootRunId: this.run.rootRunId },
        seq: message.seq,
        digest: message.digest,
        spec: message.spec,
        epoch: this.epoch,
        whilePending,
      });
    } catch (err) {
      if (isRunLeaseLost(err)) throw err;
      const error = AppError.from(err);
      if (error.code === "internal") log.error({ runId: this.runId, sessionId: this.run.sessionId, questionId: message.questionId, err }, `[runs] could not store a question of ${this.runId}`);
      this.send({ type: "question.refused", runId: this.runId, questionId: message.questionId, error: error.toWire() });
      return;
    }
    stored();
    if (waitingSince?.run) {
      // Its time until then is stored with its status: nothing more to write.
      this.active.stop(waitingSince.at);
      this.ctx.events.emit("run.updated", waitingSince.run);
      return this.syncWaiting({ questions: true, blocked: true, status: "waiting_input" });
    }
    // A pending question is what the run waits on now; one a rule settled at once needs a look.
    const known = asked.status === "pending" ? { questions: true, blocked: true } : undefined;
    if (state.kind !== "parking") await this.syncWaiting(known);
  }

  private async said(message: MessageOf["run.say"]): Promise<void> {
    const say = { runId: this.runId, seq: message.seq, text: message.text, digest: message.digest };
    await this.ctx.sessions.addMessage({ sessionId: this.run.sessionId, runId: this.runId, role: "agent", text: message.text, stopped: message.stopped ?? false, streamSeq: message.seq }, (row) =>
      this.ctx.store.sayWithMessage(say, row, this.epoch),
    );
  }

  private async called(message: MessageOf["run.call"], state: WorkerState): Promise<void> {
    try {
      await this.ctx.startChild(this.run, message, this.epoch);
    } catch (err) {
      if (isRunLeaseLost(err)) throw err;
      // The call must not wait for a child that was never stored: it fails, and the function hears why.
      log.error({ runId: this.runId, sessionId: this.run.sessionId, err }, `[runs] could not start a child run of ${this.runId}`);
      const error = `${message.functionName} could not be started: ${AppError.from(err).message}`;
      this.send({ type: "call.settled", runId: this.runId, seq: message.seq, childRunId: "", status: "failed", result: null, error });
      return;
    }
    if (state.kind !== "parking" && state.kind !== "stopping") await this.syncWaiting();
  }

  // ---- working and waiting -------------------------------------------------------------------

  /**
   * Matches the state (and the stored status) to what the run waits for; `known` when the caller
   * knows it already (it just stored the question the run waits on). The active time a run that
   * starts to wait has spent is written in the same statement as its status.
   */
  private async syncWaiting(known?: { questions: boolean; blocked: boolean; status?: string | null }): Promise<void> {
    const { questions: ownQuestions, blocked, status } = known ?? (await this.ctx.store.waitingOn(this.runId));
    const elapsed = blocked && this.current.kind === "working" ? this.active.stop() : null;
    // Nothing to write when the stored status is already right (an answer moved it in its own transaction) and no time was spent.
    const stored = ownQuestions ? "waiting_input" : "running";
    if (elapsed !== null || status === undefined || status !== stored) {
      const moved = await this.ctx.store.setWaiting(this.runId, ownQuestions, elapsed ?? 0, this.epoch);
      if (moved) this.ctx.events.emit("run.updated", moved);
    }
    const state = this.current;
    if (blocked) {
      if (state.kind === "working") this.schedulePark(this.moveToWaiting(state.worker));
      else if (state.kind === "waiting") this.schedulePark(state);
    } else if (state.kind === "waiting") {
      this.move({ kind: "working", worker: state.worker });
      this.active.start();
    }
  }

  private moveToWaiting(worker: WorkerLink): StateOf<"waiting"> {
    const waiting: StateOf<"waiting"> = { kind: "waiting", worker, since: this.ctx.clock.now() };
    this.move(waiting);
    return waiting;
  }

  private schedulePark(waiting: StateOf<"waiting">): void {
    this.ctx.clock.clearTimeout(waiting.park);
    waiting.park = undefined;
    if (this.ctx.workersWanted()) return this.parkNow();
    waiting.park = this.ctx.clock.setTimeout(() => this.parkNow(), this.ctx.parkAfterMs);
  }

  private park(): void {
    const state = this.current;
    if (state.kind !== "waiting") return;
    this.move({ kind: "parking", worker: state.worker });
    if (!this.send({ type: "run.park", runId: this.runId })) this.enqueue(() => this.workerLost(state.worker.handle.exitInfo ?? { code: null, signal: null }));
  }

  private async parked(parked: boolean, state: WorkerState): Promise<void> {
    if (state.kind === "stopping") {
      // The worker let go of the run before it saw the cancel: nothing runs it now.
      if (parked) await this.finishWithoutWorker(state);
      return;
    }
    if (state.kind !== "parking") return;
    if (!parked) {
      // A step was in flight: it stays, and parks when it next only waits.
      this.move({ kind: "working", worker: state.worker });
      return this.syncWaiting();
    }
    const worker = state.worker.handle;
    await this.ctx.store.setProgress(this.runId, null, this.epoch);
    if (await this.ctx.store.isBlocked(this.runId)) {
      this.move({ kind: "parked" });
      this.ctx.pool.release(worker);
      await this.letGo();
      return this.end({ how: "parked" });
    }
    // An answer landed while the worker let go: replay at once, in the same worker.
    this.move({ kind: "starting", missed: [] });
    return this.attach(worker);
  }

  private async workerFinished(message: RunFinishedMessage, state: WorkerState): Promise<void> {
    const { error } = message;
    const intent = state.kind === "stopping" ? state.intent : null;
    let outcome: FinalOutcome;
    let byStop = false;
    if (message.status === "succeeded") {
      // The function returned: its work is done, whatever arrived meanwhile.
      outcome = { status: "succeeded", result: message.result ?? null };
    } else if (intent) {
      outcome = { status: intent.status, error: intent.reason };
      byStop = intent.byStop;
    } else if (message.status === "failed" && error?.code === "run_cancelled") {
      // Its ask found the question cancelled with the run: a stop on a node that died before it wrote the end. The run was stopped, not failed.
      outcome = { status: "cancelled", error: error.message };
    } else {
      outcome = { status: message.status, error: error?.message ?? (message.status === "cancelled" ? "Stopped." : "Unknown error") };
    }
    // Only a run that ends failed is an error: a stopped one's function often fails by the stop.
    if (error && outcome.status === "failed") {
      log.error(
        { runId: this.runId, sessionId: this.run.sessionId, fn: this.run.functionName },
        `[runs] run ${this.runId} (${this.run.functionName}) failed: ${error.code}: ${error.detail ?? error.message}`,
      );
    }
    await this.finalize(outcome, endOf(byStop));
    this.ctx.pool.release(state.worker.handle);
  }

  private async workerLost(exit: WorkerExit): Promise<void> {
    const state = this.current;
    if (this.chain.isStopped || !holdsWorker(state)) return;
    // Killed because another run in the same worker ignored its stop: not this run's loss.
    const neighbour = exit.killedFor !== undefined && exit.killedFor !== this.runId ? exit.killedFor : null;
    const how = `${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`}${neighbour ? `, killed because run ${neighbour} did not stop in time` : ""}`;
    if (state.kind === "stopping") {
      const { intent } = state;
      return this.finalize({ status: intent.status, error: neighbour ? intent.reason : `${intent.reason} The worker did not end in time and was killed (${how}).` }, endOf(intent.byStop));
    }
    await this.pauseClock();
    if (state.kind === "working" && !neighbour) this.losses++;
    if (this.losses > this.ctx.maxWorkerLosses) {
      return this.finalize(
        { status: "failed", error: `Its worker process ended unexpectedly ${this.losses} times (last: ${how}); it was not tried again.` },
        { by: "worker_exit", questionStatus: "expired" },
      );
    }
    log.warn({ runId: this.runId, sessionId: this.run.sessionId }, `[runs] run ${this.runId} lost its worker (${how}) while ${state.kind}; resuming it from its journal`);
    if (state.kind !== "working" && (await this.ctx.store.isBlocked(this.runId))) {
      // It only waited: nothing was lost, and it stays parked until its answer arrives.
      this.move({ kind: "parked" });
      await this.letGo();
      return this.end({ how: "parked" });
    }
    // A reply cut off with its worker streams again from its start when the run is replayed.
    this.ctx.sessions.endStreams(this.runId);
    this.move({ kind: "starting", missed: [] });
    this.begin();
  }

  // ---- stopping and ending -------------------------------------------------------------------

  private async interrupt(intent: StopIntent): Promise<void> {
    const state = this.current;
    if (state.kind === "starting") {
      // No worker has the run: it ends here (a worker that arrives later is released).
      return this.finalize({ status: intent.status, error: intent.reason }, endOf(intent.byStop));
    }
    if (state.kind !== "working" && state.kind !== "waiting" && state.kind !== "parking") return;
    const stopping: StateOf<"stopping"> = { kind: "stopping", worker: state.worker, intent };
    this.move(stopping);
    await this.pauseClock();
    // Closing the questions is not fenced in the same statement: checked just before, at least.
    await this.ctx.store.assertHeld(this.runId, this.epoch);
    await this.ctx.questions.closeForRun({ runId: this.runId, status: "cancelled", by: "stop", feedback: intent.reason });
    if (!this.send({ type: "run.cancel", runId: this.runId, reason: intent.reason })) {
      return this.finishWithoutWorker(stopping);
    }
    const { worker } = stopping;
    // The worker may host other runs: it is killed on this run's behalf, and only if the run is still in it.
    stopping.grace = this.ctx.clock.setTimeout(() => {
      if (!worker.left) worker.handle.kill("SIGKILL", this.runId);
    }, this.ctx.stopGraceMs);
  }

  private async finishWithoutWorker({ worker, intent }: StateOf<"stopping">): Promise<void> {
    await this.finalize({ status: intent.status, error: intent.reason }, endOf(intent.byStop));
    if (worker.handle.alive) this.ctx.pool.release(worker.handle);
  }

  /** Decides the run's final state, once (a supervisor that never loaded the run takes its lease first). */
  private async finalize(outcome: FinalOutcome, how: EndHow): Promise<void> {
    if (this.current.kind === "finished" || isGone(this.current)) return;
    const held = await this.holdLease();
    if (!held.ok) {
      // Another node executes it: that node decides its end.
      const missed = this.current.kind === "starting" ? this.current.missed : [];
      this.move({ kind: "elsewhere" });
      return this.end({ how: "elsewhere", owner: held.owner, missed });
    }
    this.move({ kind: "finished", record: { outcome, how, written: null, announced: false, unsavedActiveMs: 0 } });
    await this.keepOpenReplies();
    await this.recordEnd(0);
  }

  /**
   * Writes the decided end. A database that fails it (locked past its wait, say) does not leave the
   * run active with nobody to end it: the write is tried again, with backoff, until it lands.
   */
  private async recordEnd(tries: number): Promise<void> {
    const state = this.current;
    if (state.kind !== "finished" || !state.record) return;
    const { record } = state;
    const { outcome } = record;
    const { by, byStop = false, questionStatus = "cancelled" } = record.how;
    const { store, questions } = this.ctx;
    try {
      // Its last active time goes with the end, in one commit (kept until it lands, if a try fails).
      record.unsavedActiveMs += this.active.stop() ?? 0;
      if (record.written === null) {
        // Closing the questions is not fenced in the same statement: checked just before, at least.
        await store.assertHeld(this.runId, this.epoch);
        await questions.closeForRun({ runId: this.runId, status: questionStatus, by, feedback: outcome.error ?? null });
        record.written = await store.finish(this.runId, outcome, record.unsavedActiveMs, this.epoch);
        // It had ended already: whatever lease this supervisor took on it is let go.
        if (!record.written) await this.letGo();
      } else if (record.unsavedActiveMs > 0) await store.addActiveMs(this.runId, record.unsavedActiveMs, this.epoch);
      record.unsavedActiveMs = 0;
      const run = await store.get(this.runId);
      if (record.written && !record.announced) {
        this.ctx.events.emit("run.updated", run);
        await this.ctx.finished(run, byStop);
        record.announced = true;
      }
      this.end({ how: "finished", status: run.status as FinalRunStatus, byStop: record.written && byStop });
    } catch (err) {
      // Another node took the run over: it decides the end.
      if (isRunLeaseLost(err)) return this.giveUp();
      const delay = retryDelay(tries);
      log.error({ runId: this.runId, err }, `[runs] could not record the end of run ${this.runId} (try ${tries + 1}); trying again in ${delay} ms`);
      this.ctx.clock.setTimeout(() => this.enqueue(() => this.recordEnd(tries + 1)), delay);
    }
  }

  /**
   * Replies still streaming when the run ends (its worker was killed or lost before it ended them)
   * are stored as they are, marked as stopped: what the tabs showed does not vanish.
   */
  private async keepOpenReplies(): Promise<void> {
    const { sessions } = this.ctx;
    for (const reply of sessions.endStreams(this.runId)) {
      if (!reply.text) continue;
      const epoch = this.epoch;
      try {
        await sessions.addMessage({ sessionId: this.run.sessionId, runId: this.runId, role: "agent", text: reply.text, stopped: true }, (row) =>
          this.ctx.store.messageWhileHeld({ ...row, runId: this.runId }, epoch),
        );
      } catch (err) {
        if (isRunLeaseLost(err)) throw err;
        log.error({ runId: this.runId, sessionId: this.run.sessionId, err }, `[runs] could not keep the open reply of ${this.runId}`);
      }
    }
  }

  /** A parked run is nobody's: the node its answer reaches takes it. A failed release lapses with the lease. */
  private async letGo(): Promise<void> {
    await this.ctx.leases.release(this.runId, this.epoch).catch((err) => log.error({ runId: this.runId, err }, `[runs] could not release the lease of ${this.runId}`));
  }

  private end(end: RunEnd): void {
    this.ctx.left(this);
    this.resolveEnd(end);
  }

  private async pauseClock(): Promise<void> {
    const elapsed = this.active.stop();
    if (elapsed !== null) await this.ctx.store.addActiveMs(this.runId, elapsed, this.epoch);
  }
}
