import { holdEpoch, type HeldEpoch } from "../../cluster/lease-fence";
import { insertMessage, type MessageInsert } from "../sessions/session-statements";
import type { SqlExecutor } from "../sql-executor";
import * as S from "./run-statements";

/** The chat messages a run writes, each while the run holds its lease epoch. */
export interface RunMessageWrites {
  /** A run's chat message with its journal entry, stored together while the run holds `epoch`: the message as stored. */
  sayWithMessage(say: { runId: string; seq: number; text: string; digest: string }, message: MessageInsert, epoch?: HeldEpoch): Promise<MessageInsert>;
  /** A message of the run (a reply it left open), stored while the run holds `epoch`. */
  messageWhileHeld(message: MessageInsert & { runId: string }, epoch: HeldEpoch): Promise<MessageInsert>;
}

export function createRunMessageWrites(exec: SqlExecutor): RunMessageWrites {
  return {
    sayWithMessage: ({ runId, seq, text, digest }, message, epoch) =>
      exec.transaction(async (tx) => {
        await Promise.all([
          holdEpoch(tx, runId, epoch),
          tx.changes(S.insertJournal, S.journalEntry({ runId, seq, kind: "say", name: text.slice(0, 200), digest, output: JSON.stringify(text), createdAt: message.createdAt })),
          tx.changes(insertMessage, message),
        ]);
        return message;
      }),
    messageWhileHeld: (message, epoch) =>
      exec.transaction(async (tx) => {
        await Promise.all([holdEpoch(tx, message.runId, epoch), tx.changes(insertMessage, message)]);
        return message;
      }),
  };
}
