import type { ApprovalSpec } from "../../../protocol/permissions";
import { RunStarterSchema, type Message, type Run, type RunStarter, type Session } from "../../../protocol/entities";
import { RunPolicySchema } from "../../../protocol/policy";
import type { JsonValue, Question } from "../../../protocol/question";
import { closedByOf } from "../../../protocol/surfaces";
import type { Approvals, EscalationStep } from "../../../protocol/teams";
import type { Selectable } from "kysely";
import type { DB } from "../typed-sql";

type Row<T extends keyof DB> = Selectable<DB[T]>;

const iso = (d: Date) => d.toISOString();
const isoOrNull = (d: Date | null) => (d ? d.toISOString() : null);

export function parseJson<T>(text: string | null): T | null {
  if (text === null) return null;
  return JSON.parse(text) as T;
}

/** A question row, with its run's root when it was read joined to its run (`run_rootRunId`). */
export function toQuestion(row: Row<"Question"> & { run_rootRunId?: string | null }): Question {
  return {
    id: row.id,
    sessionId: row.sessionId,
    runId: row.runId,
    rootRunId: row.run_rootRunId ?? row.runId,
    owner: row.owner,
    seq: row.seq,
    pendingId: row.pendingId,
    targetDigest: row.targetDigest,
    replySchema: parseJson<Record<string, unknown>>(row.replySchema),
    kind: row.kind as Question["kind"],
    approval: parseJson<ApprovalSpec>(row.approval),
    prompt: row.prompt,
    options: JSON.parse(row.options) as string[],
    multi: row.multi,
    allowCustom: row.allowCustom,
    detail: row.detail,
    hasDefault: row.defaultValue !== null,
    default: parseJson<JsonValue>(row.defaultValue),
    createdAt: iso(row.createdAt),
    expiresAt: isoOrNull(row.expiresAt),
    status: row.status as Question["status"],
    answer: parseJson<JsonValue>(row.answer),
    feedback: row.feedback,
    closedBy: closedByOf(row.closedBy),
    closedAt: isoOrNull(row.closedAt),
    answerers: parseJson<string[]>(row.answerers),
    approvals: parseJson<Approvals>(row.approvals),
    votes: [],
    escalate: parseJson<EscalationStep[]>(row.escalate) ?? [],
    escalated: row.escalated,
    closedByUser: row.closedByUser,
    closedByRule: row.closedByRule,
    editedInput: parseJson<Record<string, unknown>>(row.editedInput),
  };
}

/**
 * A stored starter that no longer reads (written by another version) shows as none rather than
 * failing the run's reads. Before 0.4 a client's `X-Parley-Surface: cli` was stored as the
 * surface (`surface: "cli"`): it reads as what it was, the client's word.
 */
function starterOf(text: string | null): RunStarter | null {
  if (text === null) return null;
  const stored = parseJson(text);
  const older = stored !== null && typeof stored === "object" && (stored as { surface?: unknown }).surface === "cli";
  const parsed = RunStarterSchema.safeParse(older ? { ...stored, surface: "rest", clientSays: "cli" } : stored);
  return parsed.success ? parsed.data : null;
}

export function toRun(row: Row<"Run">): Run {
  return {
    id: row.id,
    sessionId: row.sessionId,
    ownerId: row.ownerId,
    functionName: row.functionName,
    input: parseJson(row.input),
    status: row.status as Run["status"],
    result: parseJson(row.result),
    error: row.error,
    progress: row.progress,
    policy: RunPolicySchema.parse(JSON.parse(row.policy)),
    canAsk: row.canAsk,
    parentRunId: row.parentRunId,
    rootRunId: row.rootRunId ?? row.id,
    activeMs: row.activeMs,
    attempts: row.attempts,
    holdsTurn: row.turnOf !== null,
    startedBy: starterOf(row.startedBy),
    starterId: row.starterId ?? null,
    createdAt: iso(row.createdAt),
    updatedAt: iso(row.updatedAt),
    finishedAt: isoOrNull(row.finishedAt),
  };
}

export function toMessage(row: Row<"Message">): Message {
  return {
    id: row.id,
    sessionId: row.sessionId,
    runId: row.runId,
    role: row.role as Message["role"],
    text: row.text,
    stopped: row.stopped,
    ...(row.sender ? { sender: row.sender } : {}),
    createdAt: iso(row.createdAt),
  };
}

export function toSession(row: Row<"ChatSession">, pendingCount: number, shared: boolean): Session {
  return { id: row.id, ownerId: row.ownerId, title: row.title, createdAt: iso(row.createdAt), updatedAt: iso(row.updatedAt), pendingCount, shared };
}
