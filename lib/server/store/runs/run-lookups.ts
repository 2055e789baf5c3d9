import { type Run } from "../../../protocol/entities";
import { AppError } from "../../../protocol/errors";
import { quoteId } from "../../../protocol/bounded-text";
import type { JournalRecord } from "../../../protocol/ipc";
import { journalRecordOf } from "../../runs/journal";
import { toRun } from "../db/mappers";
import type { SqlExecutor, SqlTx } from "../sql-executor";
import * as S from "./run-statements";

/** What a run waits on: a pending question of its own (`questions`), or that or an active child run (`blocked`); `status` as stored (null: no such run). */
export interface WaitingOn {
  questions: boolean;
  blocked: boolean;
  status: string | null;
}

/** The run domain's reads: runs, what they wait on, their journals. */
export interface RunLookups {
  get(id: string): Promise<Run>;
  find(id: string): Promise<Run | null>;
  listBySession(sessionId: string): Promise<Run[]>;
  /** A session's active runs, parents before their children. */
  listActiveInSession(sessionId: string): Promise<Run[]>;
  /** Whether a run of this function was started in the session at or after `since`, other than the failed turn and its retry (a Retry checks that its turn is still the latest). */
  startedSince(tx: SqlTx, request: { sessionId: string; functionName: string; since: string; failed: string; retry: string }): Promise<boolean>;
  listActive(): Promise<Run[]>;
  activeChildIds(parentRunId: string): Promise<string[]>;
  waitingOn(id: string): Promise<WaitingOn>;
  /** Whether a run can only wait: a pending question of its own, or a child run still active. */
  isBlocked(id: string): Promise<boolean>;
  parentSeqOf(childId: string): Promise<number | null>;
  loadJournal(runId: string): Promise<JournalRecord[]>;
}

/** A boolean read from an expression (EXISTS): SQLite gives 0 or 1. */
const truthy = (value: unknown): boolean => value === true || value === 1;

export function createRunLookups(exec: SqlExecutor): RunLookups {
  async function waitingOn(id: string): Promise<WaitingOn> {
    const [row] = await exec.rows(S.waitingOn, { id });
    const questions = truthy(row?.questions);
    return { questions, blocked: questions || truthy(row?.children), status: row?.status ?? null };
  }

  async function find(id: string): Promise<Run | null> {
    const [row] = await exec.rows(S.findRun, { id });
    return row ? toRun(row) : null;
  }

  return {
    async get(id) {
      const run = await find(id);
      if (!run) throw new AppError("not_found:run", `No run with id ${quoteId(id)}.`);
      return run;
    },
    find,
    listBySession: async (sessionId) => (await exec.rows(S.runsOfSession, { sessionId })).map(toRun),
    listActiveInSession: async (sessionId) => (await exec.rows(S.activeInSession, { sessionId })).map(toRun),
    startedSince: async (tx, { sessionId, functionName, since, failed, retry }) => (await tx.rows(S.startedSince, { sessionId, functionName, since: new Date(since), failed, retry })).length > 0,
    listActive: async () => (await exec.rows(S.active, {})).map(toRun),
    activeChildIds: async (parentRunId) => (await exec.rows(S.activeChildIds, { parentRunId })).map((r) => r.id),
    waitingOn,
    isBlocked: async (id) => (await waitingOn(id)).blocked,
    parentSeqOf: async (childId) => (await exec.rows(S.findRun, { id: childId }))[0]?.parentSeq ?? null,
    loadJournal: async (runId) => (await exec.rows(S.journal, { runId })).map((row) => journalRecordOf(row, runId)),
  };
}
