import { ACTIVE_RUN_STATUSES, type FinalRunStatus, type Run, type RunStarter, type RunStatus } from "../../protocol/entities";
import { sessionWaitingError, sessionWorkingError } from "../sessions/session-busy";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import type { JsonValue } from "../../protocol/question";
import type { RunPolicy } from "../../protocol/policy";
import { directPg, directSqlite, isUniqueViolation, type Db, type Tx } from "../db/client";
import { toRun } from "../db/mappers";
import { OLDEST_FIRST } from "../ids";
import { loadJournal } from "./journal";
import { createDirectRunStore } from "./run-store-direct";
import { createPgRunStore } from "./run-store-pg";
import { noLeases, type RunLeases } from "../cluster/run-leases";
import { fenced, holdEpoch, holdingEpoch, RunLeaseLost, type HeldEpoch } from "../cluster/lease-fence";
import { rawSql } from "../db/raw-sql";

// Prisma filters take a mutable list.
const ACTIVE: RunStatus[] = [...ACTIVE_RUN_STATUSES];

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
}

export interface FinalOutcome {
  status: FinalRunStatus;
  result?: unknown;
  error?: string | null;
}

/** Inside a run's insert: a session whose delete has begun takes no new run (the delete's mark and this check are serialised by SQLite). */
async function assertSessionLive(tx: Tx, sessionId: string): Promise<void> {
  const live = await tx.chatSession.findFirst({ where: { id: sessionId, deletedAt: null }, select: { id: true } });
  if (!live) throw new AppError("not_found:session", `No session with id ${quoteId(sessionId)}.`);
}

/**
 * Every run and journal query of the run domain, as small named functions. The writes that the
 * node executing a run makes for it take the lease epoch it holds (`epoch`): each changes nothing
 * and throws RunLeaseLost once another node has taken the run over. Without leases (one node)
 * the epoch is null and nothing is checked.
 */
export function createRunStore(db: Db, leases: RunLeases = noLeases()) {
  // Leased runs (several nodes on one database) are not written on SQLite's direct lane, whose statements know no epoch.
  const direct = leases.enabled ? null : directSqlite(db);
  /** The question loop's queries on SQLite's direct lane, when it is there. */
  const fast = direct ? createDirectRunStore(direct) : null;
  const pg = directPg(db);
  /** The loop's reads and status moves on either engine's lane (PostgreSQL's fenced by the epoch). */
  const pgRuns = pg ? createPgRunStore(pg) : null;
  const lane = fast ?? pgRuns;
  const sql = rawSql(db);

  /** A write fenced by `epoch` changed nothing: RunLeaseLost when the run no longer holds that epoch (or is gone). */
  async function refusedUnlessHeld(id: string, epoch: HeldEpoch): Promise<void> {
    if (!fenced(epoch)) return;
    const row = await db.run.findUnique({ where: { id }, select: { leaseEpoch: true } });
    if (row?.leaseEpoch !== epoch) throw new RunLeaseLost(id);
  }
  /** Adds active time: fenced, or (unfenced) failing for a missing run as before. */
  async function addActiveMsPrisma(id: string, ms: number, epoch: HeldEpoch): Promise<void> {
    if (!fenced(epoch)) {
      await db.run.update({ where: { id }, data: { activeMs: { increment: ms } } });
      return;
    }
    const { count } = await db.run.updateMany({ where: { id, leaseEpoch: epoch }, data: { activeMs: { increment: ms } } });
    if (count === 0) await refusedUnlessHeld(id, epoch);
  }

  /** Why a session cannot take a new turn: the question it waits on, or the turn still working. */
  async function sessionBusy(sessionId: string, runId: string): Promise<AppError> {
    const waiting = await db.question.findFirst({ where: { sessionId, status: "pending" }, orderBy: OLDEST_FIRST, select: { id: true, prompt: true, runId: true } });
    return waiting ? sessionWaitingError(waiting) : sessionWorkingError(runId);
  }

  /** What a run waits on: a pending question of its own (`questions`), or that or an active child run (`blocked`); `status` as stored when the read gives it. */
  async function waitingOn(id: string): Promise<{ questions: boolean; blocked: boolean; status?: string | null }> {
    if (lane) return lane.waitingOn(id);
    if ((await db.question.count({ where: { runId: id, status: "pending" } })) > 0) return { questions: true, blocked: true };
    const openCalls = await db.journalEntry.findMany({ where: { runId: id, kind: "call" }, select: { childRunId: true } });
    if (openCalls.length === 0) return { questions: false, blocked: false };
    const activeChildren = await db.run.count({ where: { id: { in: openCalls.map((c) => c.childRunId!) }, status: { in: ACTIVE } } });
    return { questions: false, blocked: activeChildren > 0 };
  }

  async function find(id: string): Promise<Run | null> {
    if (lane) return lane.find(id);
    const row = await db.run.findUnique({ where: { id } });
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
    listBySession: async (sessionId: string): Promise<Run[]> =>
      (await db.run.findMany({ where: { sessionId }, orderBy: OLDEST_FIRST })).map(toRun),
    /** A session's active runs, parents before their children. */
    listActiveInSession: async (sessionId: string): Promise<Run[]> =>
      (await db.run.findMany({ where: { sessionId, status: { in: ACTIVE } }, orderBy: OLDEST_FIRST })).map(toRun),
    /** Whether a run of this function was started in the session at or after `since`, other than `except` (a Retry checks that its turn is still the latest). */
    startedSince: async (tx: Tx, { sessionId, functionName, since, except }: { sessionId: string; functionName: string; since: string; except: string[] }): Promise<boolean> =>
      (await tx.run.findFirst({ where: { sessionId, functionName, id: { notIn: except }, createdAt: { gte: new Date(since) } }, select: { id: true } })) !== null,
    listActive: async (): Promise<Run[]> => (await db.run.findMany({ where: { status: { in: ACTIVE } }, orderBy: OLDEST_FIRST })).map(toRun),
    activeChildIds: async (parentRunId: string): Promise<string[]> =>
      fast ? fast.activeChildIds(parentRunId) : (await db.run.findMany({ where: { parentRunId, status: { in: ACTIVE } }, select: { id: true } })).map((r) => r.id),

    /**
     * Inserts a run, counted as started once (it goes to a worker at once); `alongWith` writes what
     * belongs to the same command in the same transaction (`alongWithNow` the same on the direct lane).
     */
    async create(run: NewRun, alongWith?: (tx: Tx) => Promise<unknown>, alongWithNow?: () => void): Promise<Run> {
      try {
        // On the direct lane when what goes with it can be written there too.
        if (fast && direct && (alongWith === undefined || alongWithNow !== undefined)) {
          return await direct.transaction(() => {
            const created = fast.createNow(run);
            alongWithNow?.();
            return created;
          });
        }
        return await db.$transaction(async (tx: Tx) => {
          await assertSessionLive(tx, run.sessionId);
          const row = await tx.run.create({
            data: {
              id: run.id,
              sessionId: run.sessionId,
              ownerId: run.ownerId,
              functionName: run.functionName,
              input: JSON.stringify(run.input ?? null),
              status: "running",
              policy: JSON.stringify(run.policy),
              canAsk: run.canAsk,
              rootRunId: run.id,
              turnOf: run.turnOf ?? null,
              startedBy: run.startedBy ? JSON.stringify(run.startedBy) : null,
              // Its first worker start: the run is handed to a worker as soon as it is stored.
              attempts: 1,
            },
          });
          if (leases.enabled) await leases.holdNew(tx, run.id);
          await alongWith?.(tx);
          return toRun(row);
        }).then((created) => (leases.holdFresh(created.id), created));
      } catch (err) {
        const turn = run.turnOf && isUniqueViolation(err) ? await db.run.findUnique({ where: { turnOf: run.turnOf }, select: { id: true } }) : null;
        if (turn) throw await sessionBusy(run.sessionId, turn.id);
        throw err;
      }
    },

    /** A child run and the parent's journal entry that waits for it, in one transaction (fenced by the parent's epoch). */
    async createChild({ parent, childId, seq, digest, functionName, input, known }: {
      parent: Run;
      childId: string;
      seq: number;
      digest: string;
      functionName: string;
      input: JsonValue;
      known: boolean;
    }, epoch?: HeldEpoch): Promise<void> {
      await db.$transaction(async (tx: Tx) => {
        await holdEpoch(sql, tx, parent.id, epoch);
        await assertSessionLive(tx, parent.sessionId);
        await tx.run.create({
          data: {
            id: childId,
            sessionId: parent.sessionId,
            ownerId: parent.ownerId,
            functionName,
            input: JSON.stringify(input),
            status: known ? "running" : "failed",
            error: known ? null : `No agent function named "${functionName}".`,
            finishedAt: known ? null : new Date(),
            policy: JSON.stringify(parent.policy),
            canAsk: parent.canAsk,
            parentRunId: parent.id,
            parentSeq: seq,
            rootRunId: parent.rootRunId,
          },
        });
        await tx.journalEntry.create({ data: { runId: parent.id, seq, kind: "call", name: functionName, digest, childRunId: childId } });
      });
    },

    /**
     * Ends a run if it is still active: the one conditional update that decides its final state
     * (with the active time it spent last); true for the call that ended it. Fenced by `epoch`: a
     * node that lost the run writes neither. Leased runs without an epoch (no caller in the server
     * ends a run so) are ended only while no other node holds their lease.
     */
    async finish(id: string, outcome: FinalOutcome, activeMs = 0, epoch?: HeldEpoch): Promise<boolean> {
      if (fast) return fast.finish(id, outcome, activeMs);
      const { count } = await db.run.updateMany({
        where: { id, status: { in: ACTIVE }, ...(!fenced(epoch) && leases.enabled ? { OR: [{ leaseOwner: null }, { leaseOwner: leases.nodeId }] } : holdingEpoch(epoch)) },
        data: {
          ...(leases.enabled ? { leaseOwner: null, leaseUntil: null } : {}),
          ...(activeMs > 0 ? { activeMs: { increment: activeMs } } : {}),
          status: outcome.status,
          result: outcome.result === undefined ? null : JSON.stringify(outcome.result),
          error: outcome.error ?? null,
          progress: null,
          finishedAt: new Date(),
          turnOf: null,
        },
      });
      if (count === 1) {
        leases.forget(id);
        return true;
      }
      await refusedUnlessHeld(id, epoch);
      // It had ended already: the time it spent is kept all the same.
      if (activeMs > 0) await addActiveMsPrisma(id, activeMs, epoch);
      return false;
    },

    /** Moves an active run between running and waiting_input (adding `activeMs` it spent): the run as it is now, or null when it did not move. */
    async setWaiting(id: string, waiting: boolean, activeMs = 0, epoch?: HeldEpoch): Promise<Run | null> {
      if (fast) return fast.setWaiting(id, waiting, activeMs);
      let moved: Run | null;
      if (pgRuns) moved = await pgRuns.setWaiting(id, waiting, activeMs, epoch);
      else {
        const { count } = await db.run.updateMany({
          where: { id, status: waiting ? "running" : "waiting_input", ...holdingEpoch(epoch) },
          data: { status: waiting ? "waiting_input" : "running", ...(activeMs > 0 ? { activeMs: { increment: activeMs } } : {}) },
        });
        moved = count === 1 ? await get(id) : null;
      }
      if (moved) return moved;
      await refusedUnlessHeld(id, epoch);
      // It did not move; the time it spent is kept all the same (PostgreSQL's lane kept it already).
      if (!pgRuns && activeMs > 0) await addActiveMsPrisma(id, activeMs, epoch);
      return null;
    },

    /** Sets a run's progress line; true when it changed (clearing one that is already clear writes nothing; on the direct lane, the same text neither). */
    async setProgress(id: string, progress: string | null, epoch?: HeldEpoch): Promise<boolean> {
      if (fast) return fast.setProgress(id, progress);
      const { count } = await db.run.updateMany({
        where: { id, status: { in: ACTIVE }, ...(progress === null ? { progress: { not: null } } : {}), ...holdingEpoch(epoch) },
        data: { progress },
      });
      if (count === 0) await refusedUnlessHeld(id, epoch);
      return count === 1;
    },

    async addActiveMs(id: string, ms: number, epoch?: HeldEpoch): Promise<void> {
      if (fast) return fast.addActiveMs(id, ms);
      if (!pgRuns) return addActiveMsPrisma(id, ms, epoch);
      if (!(await pgRuns.addActiveMs(id, ms, epoch))) await refusedUnlessHeld(id, epoch);
    },

    async markAttempt(id: string, epoch?: HeldEpoch): Promise<void> {
      if (fast) return fast.markAttempt(id);
      if (pgRuns) {
        if (!(await pgRuns.markAttempt(id, epoch))) await refusedUnlessHeld(id, epoch);
        return;
      }
      const { count } = await db.run.updateMany({ where: { id, ...holdingEpoch(epoch) }, data: { attempts: { increment: 1 }, progress: null } });
      if (count === 0) await refusedUnlessHeld(id, epoch);
    },

    /** A step's journal entry, fenced by `epoch`. */
    async recordStep(entry: { runId: string; seq: number; name: string; digest: string; output: JsonValue }, epoch?: HeldEpoch): Promise<void> {
      const { runId, seq, name, digest, output } = entry;
      const data = { runId, seq, kind: "step", name, digest, output: JSON.stringify(output) };
      if (!fenced(epoch)) await db.journalEntry.create({ data });
      else if (pgRuns) await pgRuns.recordStep(entry, epoch);
      else {
        await db.$transaction(async (tx: Tx) => {
          await holdEpoch(sql, tx, runId, epoch);
          await tx.journalEntry.create({ data });
        });
      }
    },

    /** The journal entry of a chat message, written in the message's transaction (which `epoch` fences). */
    async recordSay(tx: Tx, { runId, seq, text, digest }: { runId: string; seq: number; text: string; digest: string }, epoch?: HeldEpoch) {
      await holdEpoch(sql, tx, runId, epoch);
      return tx.journalEntry.create({ data: { runId, seq, kind: "say", name: text.slice(0, 200), digest, output: JSON.stringify(text) } });
    },

    /** Inside someone's transaction (a message the run writes): goes on while the run holds `epoch`, else RunLeaseLost. */
    holdEpoch: (tx: Tx, runId: string, epoch: HeldEpoch) => holdEpoch(sql, tx, runId, epoch),

    /** Before a write that cannot be fenced in one statement (closing a run's questions): RunLeaseLost if the run no longer holds `epoch`. */
    assertHeld: refusedUnlessHeld,

    waitingOn,

    /** PostgreSQL's lane: a chat message and its journal entry in one statement, fenced by the epoch (null on SQLite). */
    sayWithMessage: pgRuns?.sayWithMessage ?? null,

    /** The question loop's statements on SQLite's direct lane (null elsewhere), for work inside a direct transaction. */
    now: fast,

    /** Whether a run can only wait: a pending question of its own, or a child run still active. */
    isBlocked: async (id: string): Promise<boolean> => (await waitingOn(id)).blocked,

    parentSeqOf: async (childId: string): Promise<number | null> =>
      (await db.run.findUnique({ where: { id: childId }, select: { parentSeq: true } }))?.parentSeq ?? null,

    loadJournal: (id: string) => (lane ? lane.loadJournal(id) : loadJournal(db, id)),
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
