import { coalescePerKey } from "../coalesce";
import type { DomainEvents } from "../events";
import { log } from "../log";
import type { SessionService } from "./session-service";

/** Keeps session lists' pending counts true: a session is announced again when a question of it is asked or closed. */
export interface PendingCounts {
  stop(): void;
}

export function publishPendingCounts({ events, sessions }: { events: DomainEvents; sessions: Pick<SessionService, "publish"> }): PendingCounts {
  // A burst of questions (many runs asking at once) is one read and one announcement per session.
  const publishSoon = coalescePerKey(sessions.publish, (sessionId, err) => log.error({ sessionId, err }, "[sessions] publish failed"));
  const publishSession = (q: { sessionId: string }) => publishSoon(q.sessionId);
  events.on("question.asked", publishSession);
  events.on("question.closed", publishSession);
  return { stop: () => publishSoon.stop() };
}
