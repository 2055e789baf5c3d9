import { createAnswerersNow } from "../surfaces/answerers-now";
import https from "node:https";
import { clip } from "../../protocol/bounded-text";
import type { Question } from "../../protocol/question";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import { log } from "../log";
import { createOutboxRounds } from "../outbox/outbox-rounds";
import type { Db } from "../store/db/client";
import { createPushStore, type DuePush } from "../store/push/push-store";
import { guardedLookup } from "../webhooks/address-guard";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "../webhooks/backoff";
import { hostsOnly } from "../webhooks/callback-hosts";
import { pushEndpointAllowed } from "./push-hosts";
import { closedPayload, fitPayload, pushTopic, questionPayload } from "./push-payload";
import { postPush, PUSH_TIMEOUT_MS, type PushOutcome, type PushTarget } from "./push-post";
import type { VapidKeys } from "./vapid-keys";

export interface PushOptions {
  /** More hosts an endpoint may name (PARLEY_PUSH_HOSTS). */
  hosts?: readonly string[];
  /** The wait after the first failed attempt, doubled at each next (PARLEY_PUSH_RETRY_MS). */
  retryMs?: number;
  /** How often each node looks for due pushes (another node's new ones, retries that came due). */
  pollMs?: number;
  /** How long after it was enqueued a push is tried. */
  windowMs?: number;
  timeoutMs?: number;
}

export const DEFAULT_PUSH_RETRY_MS = 5_000;
const DEFAULT_POLL_MS = 1_000;
/** Due pushes one round takes; a full batch starts the next round at once. */
const BATCH = 20;
const MAX_ERROR_CHARS = 300;
/** How many missed questions the start-up sweep takes. */
const SWEEP_LIMIT = 1_000;

/** Sends one push: web-push's, or a test's. */
export type PushSender = (target: PushTarget, payload: string, options: { vapid: VapidKeys; topic: string; agent: https.Agent; timeoutMs: number }) => Promise<PushOutcome>;

/** The push service's host: what a log line may name (the endpoint's path is a capability). */
const hostOf = (endpoint: string) => {
  try {
    return new URL(endpoint).host;
  } catch {
    return "?";
  }
};

/**
 * Web Push through a durable outbox, as the webhooks' is: a new question gets a push row per
 * device of its session's owner (not where the session is muted, nor to a browser whose tab
 * shows it), a settled one a retraction to each device its push reached and its unsent pushes
 * cancelled; every node's sender posts the due rows, one node per row, retrying with backoff
 * until the push service takes it or a day has passed. A push service answering 404 or 410 has
 * dropped the subscription: so does Parley.
 */
export function createPushOutbox(
  { db, questions }: { db: Db; questions: { getQuestion(args: { id: string }): Promise<Question> } },
  {
    vapid,
    hosts = [],
    retryMs = DEFAULT_PUSH_RETRY_MS,
    pollMs = DEFAULT_POLL_MS,
    windowMs = DELIVERY_WINDOW_MS,
    timeoutMs = PUSH_TIMEOUT_MS,
    send = postPush,
  }: PushOptions & { vapid: VapidKeys; send?: PushSender },
) {
  const store = createPushStore(db.exec);
  const answerersNow = createAnswerersNow(db);
  // Every connection's addresses are checked: a listed name reaches an inside address only when that address is listed too.
  const agent = new https.Agent({ lookup: guardedLookup(hostsOnly(hosts), undefined, "PARLEY_PUSH_HOSTS") });
  // An attempt holds its row this long: past its own timeout, so only a node that died sending lets it go.
  const holdMs = timeoutMs + 20_000;
  let stopped = false;
  // A question's enqueues in the order its events came: a retraction never overtakes its question's pushes.
  const chains = new Map<string, Promise<void>>();

  function inOrder(questionId: string, work: () => Promise<void>): Promise<void> {
    const next = (chains.get(questionId) ?? Promise.resolve()).then(work);
    const settled = next.catch((err) => log.error({ questionId, err }, "[push] could not enqueue"));
    chains.set(questionId, settled);
    void settled.then(() => chains.get(questionId) === settled && chains.delete(questionId));
    return next;
  }

  /**
   * The pushes of a waiting question to the devices of the people who may answer it now (`people`:
   * those an escalation just added), once per device: a second call adds none.
   */
  async function enqueueQuestion(question: Question, people?: string[]): Promise<void> {
    if (question.status !== "pending") return;
    const session = await store.sessionOf(question.sessionId);
    if (!session) return;
    const payload = fitPayload(questionPayload(question, session.title));
    let made = 0;
    for (const ownerId of await answerersNow(question, people)) {
      made += await store.enqueueQuestion({ questionId: question.id, sessionId: question.sessionId, ownerId, payload, windowMs });
    }
    if (made === 0) return;
    // Settled while the pushes went in (on another node, whose retraction may not have seen them): retract them here.
    if (!(await store.questionPending(question.id))) await enqueueClosed(question.id);
    kick();
  }

  /** The retraction of a settled question. */
  async function enqueueClosed(questionId: string): Promise<void> {
    if ((await store.enqueueClosed({ questionId, payload: fitPayload(closedPayload(questionId)), windowMs })) > 0) kick();
  }

  async function attempt(d: DuePush): Promise<void> {
    if (!(await store.claim(d, holdMs))) return;
    const attempts = d.attempts + 1;
    const host = hostOf(d.endpoint);
    // The hosts may have changed since it subscribed (a restart with another PARLEY_PUSH_HOSTS).
    const outcome: PushOutcome = pushEndpointAllowed(d.endpoint, hosts)
      ? await send(d, d.payload, { vapid, topic: pushTopic(d.questionId), agent, timeoutMs })
      : { ok: false, gone: false, retry: false, error: "its host is no longer allowed by PARLEY_PUSH_HOSTS" };
    if (outcome.ok) {
      await store.delivered(d, attempts);
      log.debug({ deliveryId: d.id, host, kind: d.kind, attempts }, "[push] delivered");
      return;
    }
    if (outcome.gone) {
      log.info({ subscriptionId: d.subscriptionId, host, error: outcome.error }, "[push] the push service dropped a subscription: removed");
      await store.drop(d.subscriptionId);
      return;
    }
    log.warn({ deliveryId: d.id, host, attempts, error: outcome.error }, "[push] attempt failed");
    await store.failed(d.id, attempts, clip(outcome.error, MAX_ERROR_CHARS), retryDelayMs(attempts, retryMs), !outcome.retry);
  }

  const rounds = createOutboxRounds({ name: "push", due: (limit) => store.due(limit), attempt, batch: BATCH, pollMs });
  const kick = rounds.kick;

  const surface: QuestionSurface = {
    deliver: (question) => void inOrder(question.id, () => enqueueQuestion(question)).catch(() => {}),
    escalate: (question, to) => void inOrder(question.id, () => enqueueQuestion(question, [...to])).catch(() => {}),
    retract: (question) => void inOrder(question.id, () => enqueueClosed(question.id)).catch(() => {}),
  };

  return {
    /** What the surfaces' registry tells it: pushes of a waiting question, its retraction once settled. */
    surface,
    /** The pushes of a waiting question; its retraction once settled (what the events do). */
    enqueueQuestion: (question: Question) => inOrder(question.id, () => enqueueQuestion(question)),
    enqueueClosed: (questionId: string) => inOrder(questionId, () => enqueueClosed(questionId)),

    /** Enqueues what a crash between an event and its enqueue left out: waiting questions with no push, settled ones not retracted. */
    async sweep(): Promise<number> {
      const asked = await store.askedWithoutPush(windowMs, SWEEP_LIMIT);
      for (const id of asked) await enqueueQuestion(await questions.getQuestion({ id }));
      const settled = await store.settledWithoutRetraction(SWEEP_LIMIT);
      for (const id of settled) await enqueueClosed(id);
      return asked.length + settled.length;
    },

    /** Starts sending: now, at every enqueue, and every `pollMs`. */
    start(): void {
      if (!stopped) rounds.start();
    },

    /** Stops sending; an attempt under way is cut short and counted as failed (it is retried at the next start). */
    async stop(): Promise<void> {
      stopped = true;
      agent.destroy();
      await rounds.stop();
      await Promise.all(chains.values());
    },
  };
}

export type PushOutbox = ReturnType<typeof createPushOutbox>;
