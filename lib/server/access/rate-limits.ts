import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import type { RateBucket } from "../../protocol/routes";
import { AppError } from "../../protocol/errors";

export type LimitedAction = RateBucket | "handshakes";
export type RateLimitSettings = Partial<Record<LimitedAction, { points: number; seconds: number }>> | "off";

/** Generous for a person, tight for a script gone wrong. */
export const DEFAULT_RATE_LIMITS: Record<LimitedAction, { points: number; seconds: number }> = {
  replies: { points: 120, seconds: 10 },
  runs: { points: 60, seconds: 10 },
  messages: { points: 30, seconds: 10 },
  sessions: { points: 30, seconds: 10 },
  signIn: { points: 10, seconds: 60 },
  handshakes: { points: 60, seconds: 10 },
};

/** Per-client limits on replies, runs, messages, sessions, sign-ins and socket handshakes (in memory; Redis can back them later). */
export function createRateLimits(settings: RateLimitSettings = {}) {
  const off = settings === "off";
  const limiters = new Map<LimitedAction, RateLimiterMemory>();
  for (const [action, fallback] of Object.entries(DEFAULT_RATE_LIMITS) as [LimitedAction, { points: number; seconds: number }][]) {
    const { points, seconds } = (off ? undefined : settings[action]) ?? fallback;
    limiters.set(action, new RateLimiterMemory({ keyPrefix: action, points, duration: seconds }));
  }

  return {
    /** Counts one action of a client; over the limit throws `rate_limited` with the seconds to wait. */
    async take(action: LimitedAction, client: string): Promise<void> {
      if (off) return;
      try {
        await limiters.get(action)!.consume(client);
      } catch (res) {
        if (!(res instanceof RateLimiterRes)) throw res;
        const retryAfterSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
        throw new AppError("rate_limited", `Too many requests (${action}); try again in ${retryAfterSeconds} s.`, { details: { retryAfterSeconds } });
      }
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
