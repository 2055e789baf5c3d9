import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
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

/** A Redis connection rate-limiter-flexible can count in (ioredis). */
export type RateLimitStore = ConstructorParameters<typeof RateLimiterRedis>[0]["storeClient"];

/**
 * Per-client limits on replies, runs, messages, sessions, sign-ins and socket handshakes: in
 * memory, or (several nodes) in Redis, so a client has one allowance whichever node it reaches.
 */
export function createRateLimits(settings: RateLimitSettings = {}) {
  const off = settings === "off";
  const sizes = new Map<LimitedAction, { points: number; duration: number }>();
  const limiters = new Map<LimitedAction, RateLimiterAbstract>();
  for (const [action, fallback] of Object.entries(DEFAULT_RATE_LIMITS) as [LimitedAction, { points: number; seconds: number }][]) {
    const { points, seconds } = (off ? undefined : settings[action]) ?? fallback;
    sizes.set(action, { points, duration: seconds });
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

    /**
     * Several nodes: counts go to Redis under `prefix`. While Redis is not ready each node counts
     * alone, in memory (the limiter's insurance), and a request is never refused for Redis's sake.
     */
    shareThrough(store: RateLimitStore, prefix = "parley:rl"): void {
      if (off) return;
      for (const [action, { points, duration }] of sizes) {
        const insuranceLimiter = limiters.get(action) instanceof RateLimiterMemory ? limiters.get(action) : new RateLimiterMemory({ keyPrefix: action, points, duration });
        limiters.set(action, new RateLimiterRedis({ storeClient: store, keyPrefix: `${prefix}:${action}`, points, duration, rejectIfRedisNotReady: true, insuranceLimiter }));
      }
    },
  };
}

export type RateLimits = ReturnType<typeof createRateLimits>;
