import type { Run } from "../../protocol/entities";
import { AppError } from "../../protocol/errors";
import { quoteId } from "../../protocol/bounded-text";
import { toRun } from "../db/mappers";
import type { SqliteNow } from "../store/sql-executor";
import * as S from "../store/runs/run-statements";
import type { NewRun } from "./run-store";

/**
 * The run statements that run inside SQLite's direct transactions, synchronously: with a chat
 * message, with an answer's claim, and a run's start with what belongs to its command.
 */
export function createDirectRunStore(now: SqliteNow) {
  return {
    /** Inserts a run inside a direct transaction (its session checked live there): the run as stored. */
    createNow(run: NewRun): Run {
      if (now.rows(S.liveSession, { id: run.sessionId }).length === 0) throw new AppError("not_found:session", `No session with id ${quoteId(run.sessionId)}.`);
      const [row] = now.rows(S.insertRun, {
        id: run.id,
        sessionId: run.sessionId,
        ownerId: run.ownerId,
        functionName: run.functionName,
        input: JSON.stringify(run.input ?? null),
        policy: JSON.stringify(run.policy),
        canAsk: run.canAsk,
        turnOf: run.turnOf ?? null,
        startedBy: run.startedBy ? JSON.stringify(run.startedBy) : null,
        at: new Date(),
      });
      return toRun(row!);
    },
  };
}

export type DirectRunStore = ReturnType<typeof createDirectRunStore>;
