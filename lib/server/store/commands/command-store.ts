import type { SqlExecutor, SqlTx } from "../sql-executor";
import type { RowOf } from "../typed-sql";
import * as C from "./command-statements";
import type { ReceiptParams } from "./command-statements";

export type { ReceiptParams };
export type CommandRow = RowOf<typeof C.byId>;
export type QueuedCommandRow = RowOf<typeof C.queued>;

/** Where a write runs: in a transaction, or on its own (the executor). */
type Lane = Pick<SqlTx, "changes">;

/** A command recorded to apply later: its receipt says it is queued. */
export interface QueuedCommand {
  id: string;
  kind: string;
  payloadDigest: string;
  payload: string;
  receipt: string;
  at: Date;
}

/** The Command table: each command's row, created or claimed in the transaction that applies it. */
export interface CommandStore {
  find(id: string): Promise<CommandRow | undefined>;
  /** A command applied now, with its receipt (a twin's row on its unique id refuses it: a throw). */
  insertReceipt(lane: Lane, row: ReceiptParams): Promise<boolean>;
  /** A queued command applied now: false when another applier claimed it first. */
  claimQueued(lane: Lane, row: Omit<ReceiptParams, "kind" | "payloadDigest">): Promise<boolean>;
  insertQueued(command: QueuedCommand): Promise<void>;
  /** The oldest queued commands, in the order they were recorded. */
  queued(limit: number): Promise<QueuedCommandRow[]>;
}

export function createCommandStore(exec: SqlExecutor): CommandStore {
  return {
    find: async (id) => (await exec.rows(C.byId, { id }))[0],
    insertReceipt: async (lane, row) => (await lane.changes(C.insertReceipt, row)) === 1,
    claimQueued: async (lane, row) => (await lane.changes(C.claimQueued, row)) === 1,
    insertQueued: async (command) => void (await exec.changes(C.insertQueued, command)),
    queued: (limit) => exec.rows(C.queued, { limit }),
  };
}
