import { type FinalRunStatus, type Run, type RunStarter } from "../../../protocol/entities";
import { sessionWaitingError, sessionWorkingError } from "../../sessions/session-busy";
import { AppError } from "../../../protocol/errors";
import { quoteId } from "../../../protocol/bounded-text";
import type { JsonValue } from "../../../protocol/question";
import type { RunPolicy } from "../../../protocol/policy";
import { isUniqueViolation, type Db } from "../db/client";
import { toRun } from "../db/mappers";
import type { JournalRecord } from "../../../protocol/ipc";
import { journalRecordOf } from "../../runs/journal";
import { insertMessage, type MessageInsert } from "../sessions/session-statements";
import { noLeases, type RunLeases } from "../../cluster/run-leases";
import { fenced, holdEpoch, noRunOrLeaseLost, RunLeaseLost, type HeldEpoch } from "../../cluster/lease-fence";
import { type SqlTx } from "../sql-executor";
import { firstPending } from "../questions/question-statements";
import * as S from "./run-statements";

/** A boolean read from an expression (EXISTS): SQLite gives 0 or 1. */
const truthy = (value: unknown): boolean => value === true || value === 1;

export interface NewRun {
  id: string;
  sessionId: string;
  /** The session's owner. */
  ownerId: string;
  functionName: string;
  input: unknown;
  policy: RunPolicy;
  canAsk: boolean;
  /** The session whose chat turn this is: the database refuses a second active turn. */
  turnOf?: string | null;
  /** Started through the REST API or the CLI. */
  startedBy?: RunStarter | null;
  /** The person who started it (a child run takes its parent's). */
  starterId?: string | null;
}

export interface FinalOutcome {
  status: FinalRunStatus;
  result?: unknown;
  error?: string | null;
}

/** Inside a run's insert: a session whose delete has begun takes no new run (the delete's mark and this check are serialised by the write). */
async function assertSessionLive(tx: SqlTx, sessionId: string): Promise<void> {
  if ((await tx.rows(S.liveSession, { id: sessionId })).length === 0) throw new AppError("not_found:session", `No session with id ${quoteId(sessionId)}.`);
}

/** What a child run is started with: its parent, the `call` in the parent's journal, and whether its function exists (else it fails at once). */
interface ChildOf {
  parent: Run;
  seq: number;
  known: boolean;
}

/** A run's row as first stored: a top-level run (its own root), or a child run. */
function runRow(run: NewRun, child?: ChildOf): S.RunInsert {
  const at = new Date();
  const unknown = child !== undefined && !child.known;
  return {
    id: run.id,
    sessionId: run.sessionId,
    ownerId: run.ownerId,
    functionName: run.functionName,
    input: JSON.stringify(run.input ?? null),
    status: unknown ? "failed" : "running",
    error: unknown ? `No agent function named "${run.functionName}".` : null,
    finishedAt: unknown ? at : null,
    policy: JSON.stringify(run.policy),
    canAsk: run.canAsk,
    parentRunId: child?.parent.id ?? null,
    parentSeq: child?.seq ?? null,
    rootRunId: child?.parent.rootRunId ?? run.id,
    turnOf: run.turnOf ?? null,
    startedBy: run.startedBy ? JSON.stringify(run.startedBy) : null,
    starterId: child ? child.parent.starterId : (run.starterId ?? null),
    attempts: child ? 0 : 1,
    activeMs: 0,
    createdAt: at,
    updatedAt: at,
  };
}

/**
 * Every run and journal query of the run domain, as small named functions. The writes that the
 * node executing a run makes for it take the lease epoch it holds (`epoch`): each changes nothing
 * and throws RunLeaseLost once another node has taken the run over. Without leases (one node)
 * the epoch is null and nothing is checked.
 */
export function createRunStore(db: Db, leases: RunLeases = noLeases()) {
  const { exec } = db;
  const epochOf = (epoch: HeldEpoch) => (fenced(epoch) ? epoch : null);
  /** The move between running and waiting_input (`waiting`: into it), adding `activeMs` the run spent. */
  const waitingMove = (id: string, waiting: boolean, activeMs: number, epoch: HeldEpoch) => {
    const [from, to] = waiting ? (["running", "waiting_input"] as const) : (["waiting_input", "running"] as const);
    return { id, from, to, activeMs: Math.round(activeMs), at: new Date(), epoch: epochOf(epoch) };
  };

  /** A write fenced by `epoch` changed nothing: RunLeaseLost when the run no longer holds that epoch (or is gone). */
  async function refusedUnlessHeld(id: string, epoch: HeldEpoch): Promise<void> {
    if (!fenced(epoch)) return;
    const [row] = await exec.rows(S.leaseEpochOf, { id });
    if (row?.leaseEpoch !== epoch) throw new RunLeaseLost(id);
  }

  async function addActiveMs(id: string, ms: number, epoch?: HeldEpoch): Promise<void> {
    const added = await exec.write(S.addActiveMs, { id, ms: Math.round(ms), at: new Date(), epoch: epochOf(epoch) });
    if (added.length === 0) await refusedUnlessHeld(id, epoch);
  }

  /** Why a session cannot take a new turn: the question it waits on, or the turn still working. */
  async function sessionBusy(sessionId: string, runId: string): Promise<AppError> {
    const [waiting] = await exec.rows(firstPending, { sessionId });
    return waiting ? sessionWaitingError(waiting) : sessionWorkingError(runId);
  }

  /** What a run waits on: a pending question of its own (`questions`), or that or an active child run (`blocked`); `status` as stored (null: no such run). */
  async function waitingOn(id: string): Promise<{ questions: boolean; blocked: boolean; status: string | null }> {
    const [row] = await exec.rows(S.waitingOn, { id });
    const questions = truthy(row?.questions);
    return { questions, blocked: questions || truthy(row?.children), status: row?.status ?? null };
  }

  async function find(id: string): Promise<Run | null> {
    const [row] = await exec.rows(S.findRun, { id });
    return row ? toRun(row) : null;
  }

  async function get(id: string): Promise<Run> {
    const run = await find(id);
    if (!run) throw new AppError("not_found:run", `No run with id ${quoteId(id)}.`);
    return run;
  }

  return {
    get,
    find,
    listBySession: async (sessionId: string): Promise<Run[]> => (await exec.rows(S.runsOfSession, { sessionId })).map(toRun),
    /** A session's active runs, parents before their children. */
    listActiveInSession: async (sessionId: string): Promise<Run[]> => (await exec.rows(S.activeInSession, { sessionId })).map(toRun),
    /** Whether a run of this function was started in the session at or after `since`, other than the failed turn and its retry (a Retry checks that its turn is still the latest). */
    startedSince: async (tx: SqlTx, { sessionId, functionName, since, failed, retry }: { sessionId: string; functionName: string; since: string; failed: string; retry: string }): Promise<boolean> =>
      (await tx.rows(S.startedSince, { sessionId, functionName, since: new Date(since), failed, retry })).length > 0,
    listActive: async (): Promise<Run[]> => (await exec.rows(S.active, {})).map(toRun),
    activeChildIds: async (parentRunId: string): Promise<string[]> => (await exec.rows(S.activeChildIds, { parentRunId })).map((r) => r.id),

    /**
     * Inserts a run, counted as started once (it goes to a worker at once); `alongWith` writes what
     * belongs to the same command in the same transaction. `committed` hears of the run as soon as
     * its commit is made, before that is durable (its worker may start meanwhile).
     */
    async create(run: NewRun, alongWith?: (tx: SqlTx) => Promise<unknown>, committed?: (run: Run) => void): Promise<Run> {
      try {
        return await exec.transaction(
          async (tx) => {
            // Issued together, in this order (on PostgreSQL one round trip): a refusal rolls them all back.
            const [, [row]] = await Promise.all([assertSessionLive(tx, run.sessionId), tx.rows(S.insertRun, runRow(run)), leases.enabled && leases.holdNew(tx, run.id), alongWith?.(tx)]);
            return toRun(row!);
          },
          {
            committed: (created) => {
              leases.holdFresh(created.id);
              committed?.(created);
            },
          },
        );
      } catch (err) {
        const [turn] = run.turnOf && isUniqueViolation(err) ? await exec.rows(S.turnOf, { turnOf: run.turnOf }) : [];
        if (turn) throw await sessionBusy(run.sessionId, turn.id);
        throw err;
      }
    },

    /** A child run and the parent's journal entry that waits for it, in one transaction (fenced by the parent's epoch). */
    async createChild(
      { parent, childId, seq, digest, functionName, input, known }: ChildOf & { childId: string; digest: string; functionName: string; input: JsonValue },
      epoch?: HeldEpoch,
    ): Promise<Run> {
      return exec.transaction(async (tx) => {
        await holdEpoch(tx, parent.id, epoch);
        await assertSessionLive(tx, parent.sessionId);
        const [row] = await tx.rows(
          S.insertRun,
          runRow({ id: childId, sessionId: parent.sessionId, ownerId: parent.ownerId, functionName, input, policy: parent.policy, canAsk: parent.canAsk }, { parent, seq, known }),
        );
        await tx.changes(S.insertJournal, S.journalEntry({ runId: parent.id, seq, kind: "call", name: functionName, digest, childRunId: childId, createdAt: new Date() }));
        return toRun(row!);
      });
    },

    /**
     * Ends a run if it is still active: the one conditional update that decides its final state
     * (with the active time it spent last); true for the call that ended it. Fenced by `epoch`: a
     * node that lost the run writes neither. Leased runs without an epoch (no caller in the server
     * ends a run so) are ended only while no other node holds their lease.
     */
    async finish(id: string, outcome: FinalOutcome, activeMs = 0, epoch?: HeldEpoch): Promise<boolean> {
      const ended = await exec.write(S.finish, {
        id,
        status: outcome.status,
        result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
        error: outcome.error ?? null,
        activeMs: Math.round(activeMs),
        at: new Date(),
        epoch: epochOf(epoch),
        node: !fenced(epoch) && leases.enabled ? leases.nodeId : null,
      });
      if (ended.length === 1) {
        leases.forget(id);
        return true;
      }
      await refusedUnlessHeld(id, epoch);
      // It had ended already: the time it spent is kept all the same.
      if (activeMs > 0) await addActiveMs(id, activeMs, epoch);
      return false;
    },

    /** In `tx` (a question's): moves a running run to waiting_input, adding `activeMs` it spent; the run as it is now, or null when it was not running. */
    async startWaitingIn(tx: SqlTx, id: string, activeMs: number, epoch?: HeldEpoch): Promise<Run | null> {
      const [moved] = await tx.rows(S.moveWaiting, waitingMove(id, true, activeMs, epoch));
      return moved ? toRun(moved) : null;
    },

    /** Moves an active run between running and waiting_input (adding `activeMs` it spent): the run as it is now, or null when it did not move. */
    async setWaiting(id: string, waiting: boolean, activeMs = 0, epoch?: HeldEpoch): Promise<Run | null> {
      const [moved] = await exec.write(S.moveWaiting, waitingMove(id, waiting, activeMs, epoch));
      if (moved) return toRun(moved);
      await refusedUnlessHeld(id, epoch);
      // It did not move; the time it spent is kept all the same.
      if (activeMs > 0) await addActiveMs(id, activeMs, epoch);
      return null;
    },

    /** Sets a run's progress line; true when it changed (the same text, or clearing a clear one, writes nothing). */
    async setProgress(id: string, progress: string | null, epoch?: HeldEpoch): Promise<boolean> {
      // Read first: most calls change nothing (a park clears a clear line), and a read takes no write transaction.
      const [current] = await exec.rows(S.progressOf, { id });
      if (current && current.progress === progress) return false;
      const changed = current ? await exec.write(S.setProgress, { id, progress, at: new Date(), epoch: epochOf(epoch) }) : [];
      if (changed.length === 0) await refusedUnlessHeld(id, epoch);
      return changed.length === 1;
    },

    addActiveMs,

    /**
     * Counts a worker start (its progress line starts over) and moves an active run to running, or to
     * waiting_input while a question of its own waits: the run as it is now. `committed` hears of it
     * as its commit is made, before that is durable: a power loss may forget the count and the move
     * (a restart replays the run either way), nothing a person decided.
     */
    async markAttempt(id: string, epoch?: HeldEpoch, committed?: () => void, { waiting = false }: { waiting?: boolean } = {}): Promise<Run | null> {
      const [marked] = await exec.write(
        S.markAttempt,
        { id, at: new Date(), epoch: epochOf(epoch), status: waiting ? "waiting_input" : "running" },
        { committed: (rows) => rows.length > 0 && committed?.() },
      );
      if (!marked) await refusedUnlessHeld(id, epoch);
      return marked ? toRun(marked) : null;
    },

    /** A step's journal entry, fenced by `epoch` (RunLeaseLost, or an error for a run that is gone). */
    async recordStep({ runId, seq, name, digest, output }: { runId: string; seq: number; name: string; digest: string; output: JsonValue }, epoch?: HeldEpoch): Promise<void> {
      const stored = await exec.write(S.insertStep, { runId, seq, name, digest, output: JSON.stringify(output), at: new Date(), epoch: epochOf(epoch) });
      if (stored.length === 0) throw noRunOrLeaseLost(runId, epoch);
    },

    /** A run's chat message with its journal entry, stored together while the run holds `epoch`: the message as stored. */
    async sayWithMessage({ runId, seq, text, digest }: { runId: string; seq: number; text: string; digest: string }, message: MessageInsert, epoch?: HeldEpoch): Promise<MessageInsert> {
      return exec.transaction(async (tx) => {
        await Promise.all([
          holdEpoch(tx, runId, epoch),
          tx.changes(S.insertJournal, S.journalEntry({ runId, seq, kind: "say", name: text.slice(0, 200), digest, output: JSON.stringify(text), createdAt: message.createdAt })),
          tx.changes(insertMessage, message),
        ]);
        return message;
      });
    },

    /** A message of the run (a reply it left open), stored while the run holds `epoch`. */
    messageWhileHeld: (message: MessageInsert & { runId: string }, epoch: HeldEpoch): Promise<MessageInsert> =>
      exec.transaction(async (tx) => {
        await Promise.all([holdEpoch(tx, message.runId, epoch), tx.changes(insertMessage, message)]);
        return message;
      }),

    /** Inside someone's transaction (a message the run writes): goes on while the run holds `epoch`, else RunLeaseLost. */
    holdEpoch,

    /** Before a write that cannot be fenced in one statement (closing a run's questions): RunLeaseLost if the run no longer holds `epoch`. */
    assertHeld: refusedUnlessHeld,

    waitingOn,

    /** Whether a run can only wait: a pending question of its own, or a child run still active. */
    isBlocked: async (id: string): Promise<boolean> => (await waitingOn(id)).blocked,

    parentSeqOf: async (childId: string): Promise<number | null> => (await exec.rows(S.findRun, { id: childId }))[0]?.parentSeq ?? null,

    loadJournal: async (runId: string): Promise<JournalRecord[]> => (await exec.rows(S.journal, { runId })).map((row) => journalRecordOf(row, runId)),
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
