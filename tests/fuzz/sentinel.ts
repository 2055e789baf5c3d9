import type { SessionSnapshot } from "../../lib/protocol/entities";
import type { Question } from "../../lib/protocol/question";
import { poll, restClient } from "../helpers/remote";

/**
 * The sentinel: a session with one run of `test.stamp`, which asks a question without a timeout and
 * waits. Every invalid input is aimed at it; after each, its fingerprint (the question still
 * pending with no answer, the same runs in the same states, the same messages) must be unchanged.
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
}

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
    this.ids = { sessionId: session.id, runId: run.id, questionId: question.id, pendingId: question.pendingId, digest: question.targetDigest };
    this.baseline = await this.fingerprint();
    return this.ids;
  }

  async fingerprint(): Promise<string> {
    const snapshot = await this.rest.ok(this.rest.get<SessionSnapshot>(`/api/sessions/${this.ids.sessionId}`));
    return JSON.stringify({
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
