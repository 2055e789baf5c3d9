import { createECDH, randomBytes, randomUUID } from "node:crypto";
import type { SessionSnapshot } from "../../lib/protocol/entities";
import type { PushDevices } from "../../lib/protocol/push";
import type { Question } from "../../lib/protocol/question";
import { poll, restClient } from "../helpers/remote";

/**
 * The sentinel: a session with one run of `test.stamp`, which asks a question without a timeout and
 * waits, and a push subscription (on a host the fuzz server allows, where nothing answers). Every
 * invalid input is aimed at them; after each, the fingerprint (the question still pending with no
 * answer, the same runs in the same states, the same messages, the subscription there and the
 * session not muted) must be unchanged.
 * When one changes it, a fresh sentinel replaces it so later cases (and shrinking) still test something.
 */
export const SENTINEL_FUNCTION = "test.stamp";

export interface SentinelIds {
  sessionId: string;
  runId: string;
  questionId: string;
  pendingId: string;
  /** The question's targetDigest: a reply naming it is not stale. */
  digest: string;
  pushSubscriptionId: string;
}

/** Where the sentinel's subscription points: FUZZ_PUSH_HOSTS allows it, and nothing listens there, so no push is ever taken and none drops it. */
export const FUZZ_PUSH_HOSTS = "127.0.0.1:1";

export class Sentinel {
  ids!: SentinelIds;
  private baseline = "";
  private readonly rest;

  constructor(url: string) {
    this.rest = restClient(url);
  }

  async create(): Promise<SentinelIds> {
    const { ok, post, get } = this.rest;
    const session = await ok(post<{ id: string }>("/api/sessions", { title: "fuzz sentinel" }));
    const run = await ok(post<{ id: string }>(`/api/sessions/${session.id}/runs`, { function: SENTINEL_FUNCTION }));
    const question = await poll("the sentinel's question", async () => (await ok(get<Question[]>(`/api/questions?session_id=${session.id}`)))[0]);
    const keys = { p256dh: createECDH("prime256v1").generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") };
    const subscription = await ok(post<{ id: string }>("/api/push/subscriptions", { endpoint: `https://${FUZZ_PUSH_HOSTS}/push/${randomUUID()}`, keys, device: "fuzz sentinel" }));
    this.ids = { sessionId: session.id, runId: run.id, questionId: question.id, pendingId: question.pendingId, digest: question.targetDigest, pushSubscriptionId: subscription.id };
    this.baseline = await this.fingerprint();
    return this.ids;
  }

  async fingerprint(): Promise<string> {
    const snapshot = await this.rest.ok(this.rest.get<SessionSnapshot>(`/api/sessions/${this.ids.sessionId}`));
    const push = await this.rest.ok(this.rest.get<PushDevices>("/api/push/subscriptions"));
    return JSON.stringify({
      subscribed: push.devices.some((d) => d.id === this.ids.pushSubscriptionId),
      muted: push.mutedSessions.includes(this.ids.sessionId),
      pending: snapshot.pendingQuestions.map((q) => [q.id, q.status, q.answer, q.feedback]),
      closed: snapshot.closedQuestions.map((q) => [q.id, q.status]),
      runs: snapshot.runs.map((r) => [r.id, r.status]),
      messages: snapshot.messages.length,
    });
  }

  /** Throws (after putting a fresh sentinel in place) when the sentinel changed since it was made. */
  async assertUnchanged(what: string): Promise<void> {
    const now = await this.fingerprint();
    if (now === this.baseline) return;
    const before = this.baseline;
    await this.create();
    throw new Error(`the sentinel changed after ${what}\n  before: ${before}\n  after:  ${now}`);
  }
}
