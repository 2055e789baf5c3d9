import { type FinalRunStatus, type Run, type RunStarter } from "../../../protocol/entities";
import { AppError } from "../../../protocol/errors";
import { quoteId } from "../../../protocol/bounded-text";
import type { RunPolicy } from "../../../protocol/policy";
import { type SqlTx } from "../sql-executor";
import * as S from "./run-statements";

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

/** What a child run is started with: its parent, the `call` in the parent's journal, and whether its function exists (else it fails at once). */
export interface ChildOf {
  parent: Run;
  seq: number;
  known: boolean;
}

/** Inside a run's insert: a session whose delete has begun takes no new run (the delete's mark and this check are serialised by the write). */
export async function assertSessionLive(tx: SqlTx, sessionId: string): Promise<void> {
  if ((await tx.rows(S.liveSession, { id: sessionId })).length === 0) throw new AppError("not_found:session", `No session with id ${quoteId(sessionId)}.`);
}

/** A run's row as first stored: a top-level run (its own root), or a child run. */
export function runRow(run: NewRun, child?: ChildOf): S.RunInsert {
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
