import { normalizeAnswer } from "../../protocol/answer";
import { AppError } from "../../protocol/errors";
import type {
  AnswerValue,
  Question,
  QuestionOutcome,
  QuestionSpec,
  ReplyReceipt,
} from "../../protocol/question";
import type { Db } from "../db/client";
import { toQuestion } from "../db/mappers";
import type { DomainEvents } from "../events";

/** Who or what settled a question; stored as `closedBy`. */
export type Closer = "socket" | "rest" | "timeout" | "stop" | "run_end" | "worker_exit" | "restart" | "internal";

const MAX_TIMER_MS = 2 ** 31 - 1;

export interface QuestionServiceDeps {
  db: Db;
  events: DomainEvents;
  now?: () => Date;
}

/**
 * The lifecycle of questions. The database is the authority: every transition out of `pending`
 * is one conditional update, so exactly one of any number of concurrent settlers wins.
 */
export function createQuestionService({ db, events, now = () => new Date() }: QuestionServiceDeps) {
  const timers = new Map<string, NodeJS.Timeout>();

  function clearTimer(id: string) {
    const timer = timers.get(id);
    if (timer) clearTimeout(timer);
    timers.delete(id);
  }

  function scheduleExpiry(id: string, expiresAt: Date) {
    clearTimer(id);
    const delay = Math.max(0, expiresAt.getTime() - now().getTime());
    const timer = setTimeout(() => {
      timers.delete(id);
      if (delay > MAX_TIMER_MS) return scheduleExpiry(id, expiresAt);
      void settle(id, { status: "timed_out", by: "timeout" }).catch((err) =>
        console.error(`[questions] could not time out ${id}`, err),
      );
    }, Math.min(delay, MAX_TIMER_MS));
    timer.unref();
    timers.set(id, timer);
  }

  async function getQuestion({ id }: { id: string }): Promise<Question> {
    const row = await db.question.findUnique({ where: { id } });
    if (!row) throw new AppError("not_found:question", `No question with id "${id}".`);
    return toQuestion(row);
  }

  /** Claim-once: moves a pending question to a final status; null when someone else got there first. */
  async function settle(
    id: string,
    { status, by, answer = null, feedback = null }: { status: QuestionOutcome; by: Closer; answer?: AnswerValue | null; feedback?: string | null },
  ): Promise<Question | null> {
    const { count } = await db.question.updateMany({
      where: { id, status: "pending" },
      data: {
        status,
        closedBy: by,
        closedAt: now(),
        answer: answer === null ? null : JSON.stringify(answer),
        feedback,
      },
    });
    if (count !== 1) return null;
    clearTimer(id);
    const question = await getQuestion({ id });
    events.emit("question.closed", question);
    return question;
  }

  function lateReceipt(question: Question): ReplyReceipt {
    const settledByPerson = question.status === "answered" || question.status === "declined";
    return { outcome: settledByPerson ? "already_answered" : "already_closed", question };
  }

  return {
    getQuestion,
    settle,

    async create({ id, runId, sessionId, owner, spec }: { id: string; runId: string; sessionId: string; owner: string; spec: QuestionSpec }): Promise<Question> {
      const createdAt = now();
      const expiresAt = spec.timeoutMs === null ? null : new Date(createdAt.getTime() + spec.timeoutMs);
      const row = await db.question.create({
        data: {
          id,
          runId,
          sessionId,
          owner,
          kind: spec.kind,
          prompt: spec.prompt,
          options: JSON.stringify(spec.options),
          multi: spec.multi,
          allowCustom: spec.allowCustom,
          detail: spec.detail,
          defaultValue: spec.default === undefined ? null : JSON.stringify(spec.default),
          status: "pending",
          createdAt,
          expiresAt,
        },
      });
      if (expiresAt) scheduleExpiry(id, expiresAt);
      const question = toQuestion(row);
      events.emit("question.asked", question);
      return question;
    },

    async reply({ id, value, by }: { id: string; value: AnswerValue; by: Closer }): Promise<ReplyReceipt> {
      const current = await getQuestion({ id });
      if (current.status !== "pending") return lateReceipt(current);
      const answer = normalizeAnswer(current, value);
      const won = await settle(id, { status: "answered", by, answer });
      return won ? { outcome: "answered", question: won } : lateReceipt(await getQuestion({ id }));
    },

    async reject({ id, message, by }: { id: string; message?: string; by: Closer }): Promise<ReplyReceipt> {
      const current = await getQuestion({ id });
      if (current.status !== "pending") return lateReceipt(current);
      const feedback = message?.trim() || null;
      const won = await settle(id, { status: "declined", by, feedback });
      return won ? { outcome: "declined", question: won } : lateReceipt(await getQuestion({ id }));
    },

    /** Ends every pending question of a run (stop, run end, lost worker). Returns the ones this call ended. */
    async closeForRun({ runId, status, by, feedback = null }: { runId: string; status: "cancelled" | "expired"; by: Closer; feedback?: string | null }): Promise<Question[]> {
      const open = await db.question.findMany({ where: { runId, status: "pending" }, select: { id: true } });
      const closed = await Promise.all(open.map((q) => settle(q.id, { status, by, feedback })));
      return closed.filter((q): q is Question => q !== null);
    },

    async listPending({ sessionId }: { sessionId?: string } = {}): Promise<Question[]> {
      const rows = await db.question.findMany({
        where: { status: "pending", ...(sessionId ? { sessionId } : {}) },
        orderBy: { createdAt: "asc" },
      });
      return rows.map(toQuestion);
    },

    async countPending({ runId }: { runId: string }): Promise<number> {
      return db.question.count({ where: { runId, status: "pending" } });
    },

    dispose() {
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
    },
  };
}

export type QuestionService = ReturnType<typeof createQuestionService>;
