import { Webhook } from "standardwebhooks";
import { v7 as uuidv7 } from "uuid";
import { z } from "zod";
import { ASK_FUNCTION } from "../../protocol/asks";
import { clip } from "../../protocol/bounded-text";
import type { Question } from "../../protocol/question";
import { CallbackUrlSchema, WEBHOOK_EVENT, type WebhookDelivery, type WebhookPayload } from "../../protocol/webhooks";
import type { QuestionSurface } from "../surfaces/question-surfaces";
import { log } from "../log";
import { createOutboxRounds } from "../outbox/outbox-rounds";
import type { Db } from "../store/db/client";
import { createWebhookStore, type DueDelivery } from "../store/webhooks/webhook-store";
import { guardedLookup } from "./address-guard";
import { DELIVERY_WINDOW_MS, retryDelayMs } from "./backoff";
import { callbackAllowed, DEFAULT_WEBHOOK_HOSTS } from "./callback-hosts";
import { postWebhook, WEBHOOK_TIMEOUT_MS, type PostOutcome } from "./webhook-post";

export interface WebhookOptions {
  /** The hosts a callback may name (PARLEY_WEBHOOK_HOSTS); loopback only by default. */
  hosts?: readonly string[];
  /** The wait after the first failed attempt, doubled at each next (PARLEY_WEBHOOK_RETRY_MS). */
  retryMs?: number;
  /** How often each node looks for due deliveries (another node's new ones, retries that came due). */
  pollMs?: number;
  /** How long after its question settled a delivery is tried. */
  windowMs?: number;
  timeoutMs?: number;
}

export const DEFAULT_WEBHOOK_RETRY_MS = 5_000;
const DEFAULT_POLL_MS = 1_000;
/** Due deliveries one round takes; a full batch starts the next round at once. */
const BATCH = 20;
/** The most of an attempt's error the audit keeps. */
const MAX_ERROR_CHARS = 300;

/** The callbackUrl an `ask` run was given, if any (its input is what the ask API checked). */
const CallbackOfInput = z.object({ callbackUrl: CallbackUrlSchema });
function callbackOf(run: { functionName: string; input: string } | undefined): string | null {
  if (run?.functionName !== ASK_FUNCTION) return null;
  try {
    const parsed = CallbackOfInput.safeParse(JSON.parse(run.input));
    return parsed.success ? parsed.data.callbackUrl : null;
  } catch {
    return null;
  }
}

/**
 * The callbacks of asks, through a durable outbox: a question that settles gets one delivery row
 * (its id is the webhook-id of every attempt), and every node's sender posts the due rows, signed
 * as Standard Webhooks specify, until the receiver answers 2xx or the window has passed. A
 * settlement whose enqueue a crash lost is found by the sweep at start-up. At least once: a
 * receiver that took a delivery but whose answer was lost gets it again, with the same id.
 */
export function createWebhookOutbox(
  { db, questions }: { db: Db; questions: { getQuestion(args: { id: string }): Promise<Question> } },
  {
    secret,
    hosts = DEFAULT_WEBHOOK_HOSTS,
    retryMs = DEFAULT_WEBHOOK_RETRY_MS,
    pollMs = DEFAULT_POLL_MS,
    windowMs = DELIVERY_WINDOW_MS,
    timeoutMs = WEBHOOK_TIMEOUT_MS,
  }: WebhookOptions & { secret: string },
) {
  const store = createWebhookStore(db.exec);
  const signer = new Webhook(secret);
  const lookup = guardedLookup(hosts);
  // An attempt holds its row this long: past its own timeout, so only a node that died sending lets it go.
  const holdMs = timeoutMs + 20_000;
  const stopping = new AbortController();

  /** The delivery of a settled question, if its ask named a callback (once: a second call changes nothing). */
  async function enqueue(question: Question): Promise<void> {
    if (question.status === "pending") return;
    const url = callbackOf(await store.runOf(question.runId));
    if (!url) return;
    const payload: WebhookPayload = { type: WEBHOOK_EVENT, timestamp: question.closedAt ?? new Date().toISOString(), data: { question } };
    const made = await store.enqueue({ id: `msg_${uuidv7()}`, questionId: question.id, url, payload: JSON.stringify(payload), windowMs });
    if (made) kick();
  }

  function headersFor(d: DueDelivery): Record<string, string> {
    const at = new Date();
    return { "webhook-id": d.id, "webhook-timestamp": String(Math.floor(at.getTime() / 1000)), "webhook-signature": signer.sign(d.id, at, d.payload) };
  }

  async function attempt(d: DueDelivery): Promise<void> {
    if (!(await store.claim(d, holdMs))) return;
    const attempts = d.attempts + 1;
    // The hosts may have changed since the ask (a restart with another PARLEY_WEBHOOK_HOSTS).
    const outcome: PostOutcome = callbackAllowed(d.url, hosts)
      ? await postWebhook(d.url, headersFor(d), d.payload, { timeoutMs, signal: stopping.signal, lookup })
      : { ok: false, error: "its host is no longer allowed by PARLEY_WEBHOOK_HOSTS" };
    if (outcome.ok) {
      await store.delivered(d.id, attempts);
      log.debug({ deliveryId: d.id, attempts }, "[webhooks] delivered");
      return;
    }
    log.warn({ deliveryId: d.id, attempts, error: outcome.error }, "[webhooks] attempt failed");
    await store.failed(d.id, attempts, clip(outcome.error, MAX_ERROR_CHARS), retryDelayMs(attempts, retryMs));
  }

  const rounds = createOutboxRounds({ name: "webhooks", due: (limit) => store.due(limit), attempt, batch: BATCH, pollMs });
  const kick = rounds.kick;

  const surface: QuestionSurface = {
    // An ask's callback tells only how it ended.
    deliver: () => {},
    retract: (question) => void enqueue(question).catch((err) => log.error({ questionId: question.id, err }, "[webhooks] could not enqueue a delivery")),
  };

  return {
    /** What the surfaces' registry tells it: a settled ask's callback. */
    surface,
    enqueue,

    /** Enqueues what a crash between a settlement and its enqueue left out (questions settled within the window). */
    async sweep(): Promise<number> {
      const missed = await store.settledWithoutDelivery(ASK_FUNCTION, windowMs, 1_000);
      for (const { id } of missed) await enqueue(await questions.getQuestion({ id }));
      return missed.length;
    },

    /** Starts sending: now, at every enqueue, and every `pollMs`. */
    start: rounds.start,

    /** The deliveries of a question, for its audit. */
    deliveriesOf: (questionId: string): Promise<WebhookDelivery[]> => store.of(questionId),

    /** Stops sending; an attempt under way is cut short and counted as failed (it is retried at the next start). */
    async stop(): Promise<void> {
      stopping.abort();
      await rounds.stop();
    },
  };
}

export type WebhookOutbox = ReturnType<typeof createWebhookOutbox>;
