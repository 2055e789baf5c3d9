import { createHash, randomUUID } from "node:crypto";
import { buildReceipt, type CommandKind, type Receipt } from "../../protocol/commands";
import { AppError } from "../../protocol/errors";
import { canonicalJson } from "../../protocol/plain-json";
import { isUniqueViolation, type Db } from "../store/db/client";
import { type SqlTx } from "../store/sql-executor";
import { createCommandStore, type ReceiptParams } from "../store/commands/command-store";
import { keyedSerial } from "../one-at-a-time";

export interface CommandInput {
  commandId?: string;
  kind: CommandKind;
  payload: unknown;
}

export interface ApplyContext<R extends Receipt> {
  commandId: string;
  /**
   * Stores the receipt inside the transaction that makes the command's change. When a twin of the
   * command got there first it throws, which rolls that transaction back; `run` then answers with
   * the twin's receipt.
   */
  record: (tx: SqlTx, receipt: R) => Promise<void>;
  /**
   * Whether `record` claims a queued command: a twin that claimed it first shows in what the claim
   * returns, not as an error, so it cannot leave with the transaction's COMMIT (SqlTx.commitWith).
   */
  claimsQueued: boolean;
  /** `record` in a transaction of its own, for a command whose change is not in the database (or that changes nothing). */
  commit: (receipt: R) => Promise<void>;
}

/** Applies a command and returns its receipt, stored through `record` or `commit`. */
export type Apply<R extends Receipt> = (ctx: ApplyContext<R>) => Promise<R>;

export function payloadDigest(kind: CommandKind, payload: unknown): string {
  return createHash("sha256").update(canonicalJson({ kind, payload })).digest("hex");
}

/**
 * What a settled command keeps in place of its payload. The payload is only needed while the
 * command is queued (the inbox applies it from there); once settled, its digest answers twins and
 * its effect lives in its target, so a late or stale reply stores no more than its receipt.
 */
export const SETTLED_PAYLOAD = "null";

/** Thrown inside an applying transaction when another applier claimed the queued command first. */
class ClaimedByTwin extends Error {}

type Stored<R> = { state: "queued" | "done"; receipt: R };

/**
 * Idempotent commands. The same commandId with the same payload returns the first receipt
 * (even after its target has closed); the same id with another payload is refused (409).
 * The command's row is written in the transaction that applies it — created on its unique id,
 * or, for a queued command, claimed with `WHERE applyState = 'queued'` — so of any number of
 * concurrent twins exactly one applies, and the others roll back and return its receipt.
 */
export function createCommandService({ db }: { db: Db }) {
  const { exec } = db;
  const store = createCommandStore(exec);
  async function stored<R extends Receipt>(id: string, digest: string, kind: CommandKind): Promise<Stored<R> | null> {
    const row = await store.find(id);
    if (!row) return null;
    if (row.payloadDigest !== digest || row.kind !== kind) {
      throw new AppError("command_conflict", `The commandId "${id}" was already used for a different ${row.kind} command.`);
    }
    return { state: row.applyState === "queued" ? "queued" : "done", receipt: JSON.parse(row.receipt!) as R };
  }

  async function getReceipt<R extends Receipt = Receipt>({ commandId }: { commandId: string }): Promise<R | null> {
    const row = await store.find(commandId);
    return row?.receipt ? (JSON.parse(row.receipt) as R) : null;
  }

  async function applyOnce<R extends Receipt>({ commandId, kind, payload }: CommandInput, apply: Apply<R>): Promise<R> {
    const id = commandId ?? randomUUID();
    const digest = payloadDigest(kind, payload);
    // A twin may commit between our read and our write; each lost race is answered by re-reading.
    for (let attempt = 1; ; attempt++) {
      const found = commandId ? await stored<R>(id, digest, kind) : null;
      if (found?.state === "done") return found.receipt;
      const claimQueued = found?.state === "queued";
      const row = (receipt: R): ReceiptParams => ({
        id,
        kind,
        payloadDigest: digest,
        payload: SETTLED_PAYLOAD,
        applyState: receipt.apply_state,
        receipt: JSON.stringify(receipt),
        at: new Date(),
      });
      const record = async (tx: SqlTx, receipt: R) => {
        if (!(await (claimQueued ? store.claimQueued : store.insertReceipt)(tx, row(receipt)))) throw new ClaimedByTwin();
      };
      const commit = (receipt: R) => exec.transaction((tx) => record(tx, receipt));
      try {
        return await apply({ commandId: id, record, commit, claimsQueued: claimQueued });
      } catch (err) {
        const lostToTwin = err instanceof ClaimedByTwin || (commandId !== undefined && isUniqueViolation(err) && (await store.find(id)) !== undefined);
        if (!lostToTwin || attempt >= 3) throw err;
      }
    }
  }

  /**
   * A twin that arrives on this node while its command applies waits for it, then reads its
   * receipt: applying beside it, it would see the first's effect (a stop finds the run ended) and
   * might commit that receipt first. Twins on other nodes are still decided by the unique id.
   */
  const serial = keyedSerial();
  const oneAtATime = <R>(commandId: string | undefined, work: () => Promise<R>): Promise<R> => (commandId === undefined ? work() : serial(commandId, work));

  return {
    run: <R extends Receipt>(input: CommandInput, apply: Apply<R>): Promise<R> => oneAtATime(input.commandId, () => applyOnce(input, apply)),
    /** Records a command to apply later (the CLI while no server runs); a twin gets the stored receipt. */
    async enqueue<R extends Receipt>({ commandId, kind, payload }: CommandInput & { commandId: string }, queuedReceipt: R): Promise<R> {
      const digest = payloadDigest(kind, payload);
      const found = await stored<R>(commandId, digest, kind);
      if (found) return found.receipt;
      try {
        await store.insertQueued({ id: commandId, kind, payloadDigest: digest, payload: JSON.stringify(payload), receipt: JSON.stringify(queuedReceipt), at: new Date() });
        return queuedReceipt;
      } catch (err) {
        const twin = isUniqueViolation(err) ? await stored<R>(commandId, digest, kind) : null;
        if (twin) return twin.receipt;
        throw err;
      }
    },

    async listQueued(): Promise<Array<{ id: string; kind: CommandKind; payload: unknown }>> {
      const rows = await store.queued(100);
      return rows.map((r) => ({ id: r.id, kind: r.kind as CommandKind, payload: JSON.parse(r.payload) as unknown }));
    },

    /**
     * A queued command that can never be applied: its receipt says why, and it is not tried again.
     * Returns the stored receipt, which is another applier's when it applied the command first.
     */
    async markRejected({ commandId, kind, error }: { commandId: string; kind: CommandKind; error: { code: string; message: string } }): Promise<Receipt> {
      const receipt = buildReceipt<Receipt>({ commandId, kind, apply_state: "rejected", error });
      const claimed = await store.claimQueued(exec, { id: commandId, applyState: "rejected", receipt: JSON.stringify(receipt), at: new Date(), payload: SETTLED_PAYLOAD });
      return claimed ? receipt : ((await getReceipt({ commandId })) ?? receipt);
    },

    getReceipt,
  };
}

export type CommandService = ReturnType<typeof createCommandService>;
