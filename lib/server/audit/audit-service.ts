import { askedLine, auditCursor, describeVia, outcomeLine, type AuditEntry, type AuditPage, type AuditQuery, type AuditRule } from "../../protocol/audit";
import { quoteId } from "../../protocol/bounded-text";
import { defaultDisplayName, type NameOf } from "../../protocol/display-names";
import { AppError } from "../../protocol/errors";
import { answerSurfaceOf } from "../../protocol/surfaces";
import type { QuestionOutcome } from "../../protocol/question";
import type { Db } from "../store/db/client";
import { toQuestion } from "../store/db/mappers";
import { createAuditStore, type SettledRow, type VoteRow } from "../store/audit/audit-store";
import { createPeopleStore } from "../store/people/people-store";
import { createDisplayNames } from "../people/display-names";

/** Whose sessions a caller's audit covers: their own; an administrator's (`local`, the server token's, and any person made one), every one (null). */
export function auditViewer(caller: { ownerId: string; admin: boolean }): string | null {
  return caller.admin ? null : caller.ownerId;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** A settled question as the audit lists it: the same words the CLI and the web UI use (lib/protocol/audit.ts), people by their display names. */
export function auditEntry(row: SettledRow, votes: VoteRow[], nameOf: NameOf = defaultDisplayName): AuditEntry {
  const q = toQuestion(row);
  const closedAt = q.closedAt!;
  const rule: AuditRule | null =
    row.rule_tool !== null && row.rule_pattern !== null && row.rule_decision !== null
      ? { tool: row.rule_tool, pattern: row.rule_pattern, decision: row.rule_decision as AuditRule["decision"], cwd: row.rule_cwd }
      : null;
  const originalInput = q.editedInput && isRecord(q.approval?.input) ? q.approval.input : null;
  return {
    id: q.id,
    sessionId: q.sessionId,
    sessionTitle: row.session_title,
    runId: q.runId,
    kind: q.kind,
    askedBy: q.owner,
    asked: askedLine(q),
    status: q.status as QuestionOutcome,
    answer: q.answer,
    feedback: q.feedback,
    closedBy: q.closedBy,
    via: describeVia(q.closedBy),
    person: q.closedByUser,
    personName: q.closedByUser === null ? null : nameOf(q.closedByUser),
    ruleId: q.closedByRule,
    rule,
    editedInput: q.editedInput,
    originalInput,
    votes: votes.map((v) => ({
      user: v.userId,
      name: nameOf(v.userId),
      decision: v.decision as "allow" | "reject",
      at: v.createdAt.toISOString(),
      surface: answerSurfaceOf(v.surface),
      feedback: v.feedback,
    })),
    outcome: outcomeLine(q, { rule, nameOf }),
    createdAt: q.createdAt,
    closedAt,
    cursor: auditCursor({ closedAt, id: q.id }),
  };
}

/** The audit: who settled each question, from where, or which rule did; read by `GET /api/audit` and `parley audit`. */
export function createAuditService(db: Db) {
  const store = createAuditStore(db);
  const names = createDisplayNames(createPeopleStore(db.exec));
  return {
    /** A page for `viewer` (null: an administrator); a session named that the reader may not see answers as one that does not exist. */
    async read(viewer: string | null, { session, after, limit }: AuditQuery): Promise<AuditPage> {
      const sessionId = session === undefined ? null : await store.sessionNamed(viewer, session);
      if (session !== undefined && sessionId === null) throw new AppError("not_found:session", `No session with id or title ${quoteId(session)}.`);
      const { rows, votes, more } = await store.page({ viewer, sessionId, after: after ? { at: new Date(after.at), id: after.id } : null, limit });
      const votesOf = new Map<string, VoteRow[]>();
      for (const vote of votes) votesOf.set(vote.questionId, [...(votesOf.get(vote.questionId) ?? []), vote]);
      const nameOf = await names.nameOf();
      const entries = rows.map((row) => auditEntry(row, votesOf.get(row.id) ?? [], nameOf));
      return { entries, next: more ? entries.at(-1)!.cursor : null };
    },
  };
}

export type AuditService = ReturnType<typeof createAuditService>;
