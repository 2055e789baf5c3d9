import { createHash, randomUUID } from "node:crypto";
import { AppError } from "../../protocol/errors";
import { canonicalJson } from "../../protocol/plain-json";
import type { CommandKind, Receipt } from "../../protocol/question";
import type { Db, Tx } from "../db/client";

export interface CommandInput {
  commandId?: string;
  kind: CommandKind;
  payload: unknown;
}

/** What an apply step hands back: the receipt, and whether to store it as applied or as queued. */
export type Apply<R extends Receipt> = (ctx: { commandId: string; record: (tx: Tx, receipt: R) => Promise<void> }) => Promise<R>;

export function payloadDigest(kind: CommandKind, payload: unknown): string {
  return createHash("sha256").update(canonicalJson({ kind, payload })).digest("hex");
}

function isUniqueViolation(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { code?: string }).code === "P2002";
}

/**
 * Idempotent commands. The same commandId with the same payload returns the first receipt
 * (even after its target has closed); the same id with another payload is refused (409).
 * `apply` stores the receipt through `record` inside the transaction that makes its change,
 * so a command is never applied without its receipt, or recorded without being applied.
 */
export function createCommandService({ db }: { db: Db }) {
  async function existing<R extends Receipt>(id: string, digest: string, kind: CommandKind): Promise<R | "queued" | null> {
    const row = await db.command.findUnique({ where: { id } });
    if (!row) return null;
    if (row.payloadDigest !== digest || row.kind !== kind) {
      throw new AppError("command_conflict", `The commandId "${id}" was already used for a different ${row.kind} command.`);
    }
    if (row.applyState === "queued") return "queued";
    return JSON.parse(row.receipt!) as R;
  }

  return {
    async run<R extends Receipt>({ commandId, kind, payload }: CommandInput, apply: Apply<R>): Promise<R> {
      const id = commandId ?? randomUUID();
      const digest = payloadDigest(kind, payload);
      if (commandId) {
        const found = await existing<R>(id, digest, kind);
        if (found && found !== "queued") return found;
      }
      const record = async (tx: Tx, receipt: R) => {
        const data = { kind, payloadDigest: digest, payload: JSON.stringify(payload), applyState: receipt.apply_state, receipt: JSON.stringify(receipt), appliedAt: new Date() };
        await tx.command.upsert({ where: { id }, create: { id, ...data }, update: data });
      };
      try {
        return await apply({ commandId: id, record });
      } catch (err) {
        // A concurrent twin of this command got there first: answer with its receipt.
        if (commandId && isUniqueViolation(err)) {
          const found = await existing<R>(id, digest, kind);
          if (found && found !== "queued") return found;
        }
        throw err;
      }
    },

    /** Records a command to apply later (the CLI while no server runs). */
    async enqueue({ commandId, kind, payload }: CommandInput & { commandId: string }, queuedReceipt: Receipt): Promise<Receipt> {
      const digest = payloadDigest(kind, payload);
      const found = await existing<Receipt>(commandId, digest, kind);
      if (found === "queued") return queuedReceipt;
      if (found) return found;
      await db.command.create({
        data: { id: commandId, kind, payloadDigest: digest, payload: JSON.stringify(payload), applyState: "queued", receipt: JSON.stringify(queuedReceipt) },
      });
      return queuedReceipt;
    },

    async listQueued(): Promise<Array<{ id: string; kind: CommandKind; payload: unknown }>> {
      const rows = await db.command.findMany({ where: { applyState: "queued" }, orderBy: { createdAt: "asc" }, take: 100 });
      return rows.map((r) => ({ id: r.id, kind: r.kind as CommandKind, payload: JSON.parse(r.payload) }));
    },

    /** A queued command that cannot be applied: its receipt says why, and it is not tried again. */
    async markRejected({ commandId, kind, error }: { commandId: string; kind: CommandKind; error: { code: string; message: string } }): Promise<Receipt> {
      const receipt: Receipt = { commandId, kind, record_state: "durably_recorded", apply_state: "rejected", error };
      await db.command.update({ where: { id: commandId }, data: { applyState: "rejected", receipt: JSON.stringify(receipt), appliedAt: new Date() } });
      return receipt;
    },

    async getReceipt({ commandId }: { commandId: string }): Promise<Receipt | null> {
      const row = await db.command.findUnique({ where: { id: commandId } });
      return row?.receipt ? (JSON.parse(row.receipt) as Receipt) : null;
    },
  };
}

export type CommandService = ReturnType<typeof createCommandService>;
