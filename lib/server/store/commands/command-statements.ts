import { statement } from "../typed-sql";

/** A settled command's receipt as it is stored. */
export interface ReceiptParams {
  id: string;
  kind: string;
  payloadDigest: string;
  payload: string;
  applyState: string;
  receipt: string;
  at: Date;
}

/** A command applied now: its row with its receipt (a twin's row, on the unique id, refuses it). */
export const insertReceipt = statement((q, p: ReceiptParams) =>
  q.insertInto("Command").values({ id: p.id, kind: p.kind, payloadDigest: p.payloadDigest, payload: p.payload, applyState: p.applyState, receipt: p.receipt, createdAt: p.at, appliedAt: p.at }),
);

/** A queued command applied now: claimed while still queued (another applier's claim leaves nothing to claim). */
export const claimQueued = statement((q, p: Omit<ReceiptParams, "kind" | "payloadDigest">) =>
  q.updateTable("Command").set({ applyState: p.applyState, receipt: p.receipt, appliedAt: p.at, payload: p.payload }).where("id", "=", p.id).where("applyState", "=", "queued"),
);

export const byId = statement((q, p: { id: string }) => q.selectFrom("Command").selectAll().where("id", "=", p.id));

/** A command recorded to apply later (the CLI while no server runs). */
export const insertQueued = statement((q, p: { id: string; kind: string; payloadDigest: string; payload: string; receipt: string; at: Date }) =>
  q.insertInto("Command").values({ id: p.id, kind: p.kind, payloadDigest: p.payloadDigest, payload: p.payload, applyState: "queued", receipt: p.receipt, createdAt: p.at }),
);

/** The oldest queued commands, in the order they were recorded. */
export const queued = statement((q, p: { limit: number }) => q.selectFrom("Command").select(["id", "kind", "payload"]).where("applyState", "=", "queued").orderBy("createdAt").limit(p.limit));
