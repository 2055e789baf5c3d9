import { ErrorCode, type WebClient } from "@slack/web-api";
import { clip } from "../../protocol/bounded-text";
import type { Question } from "../../protocol/question";
import { newOrderedId } from "../ids";
import { log } from "../log";
import { keyedSerial } from "../one-at-a-time";
import { createOutboxRounds } from "../outbox/outbox-rounds";
import type { Db } from "../store/db/client";
import { createDisplayNames } from "../people/display-names";
import { createPeopleStore } from "../store/people/people-store";
import { createAnswerersNow } from "../surfaces/answerers-now";
import { createSessionStore } from "../store/sessions/session-store";
import { createSlackStore, type DueSlackMessage } from "../store/slack/slack-store";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import { retryDelayMs } from "../webhooks/backoff";
import { questionMessage, questionText } from "./slack-blocks";
import { questionLink } from "../../protocol/question-notification";
import type { SlackPeople } from "./slack-people";

export interface SlackOutboxOptions {
  /** Where questions of chats with no channel of their own go (PARLEY_SLACK_CHANNEL); unset: the DMs of the linked people who may answer. */
  channel?: string;
  /** Where people reach Parley (PARLEY_PUBLIC_URL): a message links to its chat. */
  publicUrl?: string;
  /** The wait after the first failed attempt, doubled at each next. */
  retryMs?: number;
  pollMs?: number;
}

const BATCH = 20;
/** How long a claimed attempt holds its row before another node may take it. */
const HOLD_MS = 30_000;
const MAX_ERROR_CHARS = 300;
/** How far back the start-up sweep looks for questions asked with no message (a crash between the two). */
const SWEEP_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Slack's answers that no retry changes: the message is given up (and the log says why). */
const FINAL_ERRORS = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "invalid_auth",
  "account_inactive",
  "token_revoked",
  "no_permission",
  "missing_scope",
  "msg_too_long",
  "invalid_blocks",
  "user_not_found",
]);

type Outcome = { ok: true; posted: { ts: string; channel: string } | null } | { ok: false; error: string; delayMs?: number; final: boolean };

/** What a Web API call's failure means for the outbox: wait what Slack says on 429, give up on a final error, else back off. */
export function slackFailure(err: unknown): Omit<Extract<Outcome, { ok: false }>, "ok"> {
  const e = err as { code?: string; retryAfter?: number; data?: { error?: string }; message?: string };
  if (e.code === ErrorCode.RateLimitedError) return { error: `rate limited: retry after ${e.retryAfter ?? "?"} s`, delayMs: Math.max(1, e.retryAfter ?? 1) * 1000, final: false };
  if (e.code === ErrorCode.PlatformError) {
    const code = e.data?.error ?? "unknown";
    return { error: `Slack answered ${code}`, final: FINAL_ERRORS.has(code) };
  }
  return { error: e.message ?? String(err), final: false };
}

/**
 * Slack as a surface that shows questions: each waiting question becomes a message (Block Kit, its
 * answer controls by card kind) in its chat's channel, PARLEY_SLACK_CHANNEL, or the DMs of the
 * linked people who may answer; a vote or its end updates every message of it to show what
 * happened. Durable: a row per message, posted and updated by every node's sender (one node per
 * row), retried with backoff and after Slack's Retry-After, surviving restarts.
 */
export function createSlackOutbox(
  { db, client, questions, people }: { db: Db; client: WebClient; questions: { getQuestion(args: { id: string }): Promise<Question> }; people: Pick<SlackPeople, "slackUsersOf"> },
  options: SlackOutboxOptions = {},
) {
  const store = createSlackStore(db.exec);
  const sessions = createSessionStore(db.exec);
  const answerersNow = createAnswerersNow(db);
  const names = createDisplayNames(createPeopleStore(db.exec));
  const { retryMs = 5_000, pollMs = 1_000 } = options;
  const inOrder = keyedSerial();

  /** Where a question's messages go: its chat's channel, the server's, else the DMs of the linked people who may answer (`to`: only those). */
  async function channelsOf(question: Question, to?: readonly string[]): Promise<string[]> {
    const own = (await store.channelOf(question.sessionId)) ?? options.channel;
    if (own) return to ? [] : [own];
    const linked = await people.slackUsersOf(await answerersNow(question, to));
    return [...linked.values()];
  }

  async function enqueue(question: Question, people?: readonly string[]): Promise<void> {
    if (question.status !== "pending") return;
    const made = await store.enqueue(question.id, await channelsOf(question, people), newOrderedId);
    if (made > 0) rounds.kick();
  }

  async function touch(questionId: string): Promise<void> {
    if ((await store.touch(questionId)) > 0) rounds.kick();
  }

  /** Posts the message, or updates it to show the question as it is now; a question settled before its post is never posted. */
  async function send(m: DueSlackMessage): Promise<Outcome> {
    const question = await questions.getQuestion({ id: m.questionId });
    if (!m.ts && question.status !== "pending") return { ok: true, posted: null };
    const session = await sessions.live(question.sessionId);
    const nameOf = await names.nameOf();
    const cardUrl = options.publicUrl ? `${options.publicUrl.replace(/\/+$/, "")}${questionLink(question)}` : null;
    const blocks = questionMessage(question, { chatTitle: session?.title ?? "a chat", cardUrl, nameOf });
    const text = questionText(question);
    try {
      if (m.ts && m.postedIn) {
        await client.chat.update({ channel: m.postedIn, ts: m.ts, text, blocks });
        return { ok: true, posted: { ts: m.ts, channel: m.postedIn } };
      }
      const posted = await client.chat.postMessage({ channel: m.channel, text, blocks, unfurl_links: false, unfurl_media: false });
      return { ok: true, posted: { ts: posted.ts!, channel: posted.channel ?? m.channel } };
    } catch (err) {
      return { ok: false, ...slackFailure(err) };
    }
  }

  async function attempt(m: DueSlackMessage): Promise<void> {
    if (!(await store.claim(m, HOLD_MS))) return;
    const attempts = m.attempts + 1;
    const outcome = await send(m);
    if (outcome.ok) return store.synced(m, attempts, outcome.posted);
    const level = outcome.final ? "error" : "warn";
    log[level]({ messageId: m.id, questionId: m.questionId, attempts, error: outcome.error }, outcome.final ? "[slack] message given up" : "[slack] attempt failed");
    await store.failed(m.id, attempts, clip(outcome.error, MAX_ERROR_CHARS), outcome.delayMs ?? retryDelayMs(attempts, retryMs), outcome.final);
  }

  const rounds = createOutboxRounds({ name: "slack", due: (limit) => store.due(limit), attempt, batch: BATCH, pollMs });

  const logged = (what: string, questionId: string) => (err: unknown) => log.error({ questionId, err }, `[slack] could not ${what}`);
  const surface: QuestionSurface = {
    deliver: (q) => void inOrder(q.id, () => enqueue(q)).catch(logged("enqueue a message", q.id)),
    escalate: (q, to) => void inOrder(q.id, () => enqueue(q, to).then(() => touch(q.id))).catch(logged("enqueue a message", q.id)),
    update: (q) => void inOrder(q.id, () => touch(q.id)).catch(logged("update its messages", q.id)),
    retract: (q) => void inOrder(q.id, () => touch(q.id)).catch(logged("update its messages", q.id)),
  };

  return {
    /** What the surfaces' registry tells it. */
    surface,
    store,
    /** Enqueues what a crash between an event and its enqueue left out: waiting questions with no message, settled ones whose messages still show them waiting. */
    async sweep(): Promise<number> {
      const asked = await store.askedWithoutMessage(SWEEP_WINDOW_MS, 1_000);
      for (const id of asked) await enqueue(await questions.getQuestion({ id }));
      const settled = await store.settledSinceSynced();
      for (const id of settled) await touch(id);
      return asked.length + settled.length;
    },
    start: rounds.start,
    stop: rounds.stop,
  };
}

export type SlackOutbox = ReturnType<typeof createSlackOutbox>;
