import type { Transporter } from "nodemailer";
import { clip } from "../../protocol/bounded-text";
import type { Question } from "../../protocol/question";
import { newOrderedId } from "../ids";
import { log } from "../log";
import { keyedSerial } from "../one-at-a-time";
import { createOutboxRounds } from "../outbox/outbox-rounds";
import type { Db } from "../store/db/client";
import { createEmailStore, type DueEmail } from "../store/email/email-store";
import { createAnswerersNow } from "../surfaces/answerers-now";
import { createSessionStore } from "../store/sessions/session-store";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import { retryDelayMs } from "../webhooks/backoff";
import { questionMail } from "./question-mail";

export interface EmailOutboxOptions {
  /** The sender (PARLEY_EMAIL_FROM): "Parley <parley@example.com>". */
  from: string;
  /** The answer page of a mail (its capability link), and a question's card in Parley. */
  pageUrl(messageId: string): string;
  cardUrl(question: Question): string;
  retryMs?: number;
  pollMs?: number;
}

const BATCH = 10;
const HOLD_MS = 60_000;
const MAX_ERROR_CHARS = 300;
const SWEEP_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Tries of one mail before it is given up (with the backoff doubling from PARLEY_EMAIL_RETRY_MS, about a day at the default). */
const MAX_ATTEMPTS = 15;

/** What a send's failure means: an SMTP answer in the 500s is final (the address or the message is refused), anything else is tried again. */
export function mailFailure(err: unknown): { error: string; final: boolean } {
  const e = err as { responseCode?: number; response?: string; message?: string; code?: string };
  if (typeof e.responseCode === "number") return { error: `the mail server answered ${e.response ?? e.responseCode}`, final: e.responseCode >= 500 };
  return { error: e.message ?? String(err), final: e.code === "EENVELOPE" };
}

/**
 * Email as a surface that shows questions: a question is mailed to each person who may answer it
 * and has an address with questions on (`parley user set NAME --email-questions off` stops it),
 * when it is asked or when an escalation reaches them. Durable as the other outboxes: a row per
 * question and person, sent by one node, retried with backoff; a question settled before its mail
 * went is not sent. The mail's answer links name its row.
 */
export function createEmailOutbox({ db, transport, questions }: { db: Db; transport: Transporter; questions: { getQuestion(args: { id: string }): Promise<Question> } }, options: EmailOutboxOptions) {
  const store = createEmailStore(db.exec);
  const sessions = createSessionStore(db.exec);
  const answerersNow = createAnswerersNow(db);
  const { retryMs = 30_000, pollMs = 1_000 } = options;
  const inOrder = keyedSerial();

  async function enqueue(question: Question, people?: readonly string[]): Promise<void> {
    if (question.status !== "pending") return;
    const recipients = await store.emailsOf(await answerersNow(question, people));
    if ((await store.enqueue(question.id, recipients, newOrderedId)) > 0) rounds.kick();
  }

  async function attempt(m: DueEmail): Promise<void> {
    if (!(await store.claim(m, HOLD_MS))) return;
    const attempts = m.attempts + 1;
    const question = await questions.getQuestion({ id: m.questionId });
    if (question.status !== "pending") return void (await store.cancelUnsent(question.id));
    const session = await sessions.live(question.sessionId);
    const mail = questionMail(question, { chatTitle: session?.title ?? "a chat", pageUrl: options.pageUrl(m.id), cardUrl: options.cardUrl(question) });
    try {
      await transport.sendMail({ from: options.from, to: m.address, subject: mail.subject, text: mail.text, html: mail.html, headers: { "X-Parley-Question": question.id } });
      await store.sent(m.id, attempts);
    } catch (err) {
      const failure = mailFailure(err);
      const final = failure.final || attempts >= MAX_ATTEMPTS;
      log[final ? "error" : "warn"]({ mailId: m.id, questionId: m.questionId, attempts, error: failure.error }, final ? "[email] mail given up" : "[email] attempt failed");
      await store.failed(m.id, attempts, clip(failure.error, MAX_ERROR_CHARS), retryDelayMs(attempts, retryMs), final);
    }
  }

  const rounds = createOutboxRounds({ name: "email", due: (limit) => store.due(limit), attempt, batch: BATCH, pollMs });
  const logged = (questionId: string) => (err: unknown) => log.error({ questionId, err }, "[email] could not enqueue a mail");
  const surface: QuestionSurface = {
    deliver: (q) => void inOrder(q.id, () => enqueue(q)).catch(logged(q.id)),
    escalate: (q, to) => void inOrder(q.id, () => enqueue(q, to)).catch(logged(q.id)),
    // A mail sent stays in the inbox: its link says how the question ended. One not sent yet is not sent.
    retract: (q) => void inOrder(q.id, () => store.cancelUnsent(q.id)).catch(logged(q.id)),
  };

  return {
    surface,
    store,
    /** Enqueues what a crash between an ask and its enqueue left out. */
    async sweep(): Promise<number> {
      const asked = await store.askedWithoutMessage(SWEEP_WINDOW_MS, 1_000);
      for (const id of asked) await enqueue(await questions.getQuestion({ id }));
      return asked.length;
    },
    start: rounds.start,
    stop: rounds.stop,
  };
}

export type EmailOutbox = ReturnType<typeof createEmailOutbox>;
