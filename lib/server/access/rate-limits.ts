import type { Redis } from "ioredis";
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { RateBucket } from "../../protocol/routes";
import { AppError } from "../../protocol/errors";

export type LimitedAction = RateBucket | "handshakes" | "badTokens";
export type RateLimitSettings = Partial<Record<LimitedAction, { points: number; seconds: number }>> | "off";

/** Generous for a person, tight for a script gone wrong. */
export const DEFAULT_RATE_LIMITS: Record<LimitedAction, { points: number; seconds: number }> = {
  replies: { points: 120, seconds: 10 },
  runs: { points: 60, seconds: 10 },
  messages: { points: 30, seconds: 10 },
  sessions: { points: 30, seconds: 10 },
  signIn: { points: 10, seconds: 60 },
  handshakes: { points: 60, seconds: 10 },
  // Bearer tokens that were not a credential, per client address: as many as sign-ins.
  badTokens: { points: 10, seconds: 60 },
};

/** A Redis connection rate-limiter-flexible can count in. */
export type RateLimitStore = Redis;

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

  async function take(action: LimitedAction, client: string): Promise<void> {
    if (off) return;
    try {
      await limiters.get(action)!.consume(client);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      const retryAfterSeconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      throw new AppError("rate_limited", `Too many requests (${action}); try again in ${retryAfterSeconds} s.`, { details: { retryAfterSeconds } });
    }
  }

  return {
    /** Counts one action of a client; over the limit throws `rate_limited` with the seconds to wait. */
    take,

    /**
     * Only failures use up the allowance: an attempt is counted before it is made (so a burst of
     * guesses in flight at once cannot outrun the count) and given back when `succeeded` says so.
     * Once a client's failures reach the limit, every attempt of it is refused until the window
     * ends, a good one too: otherwise the answer would still tell a right guess from a wrong one.
     */
    async failuresOnly<T>(action: LimitedAction, client: string, attempt: () => Promise<T>, succeeded: (outcome: T) => boolean): Promise<T> {
      if (off) return attempt();
      await take(action, client);
      // A failed give-back (Redis lost meanwhile) only leaves the attempt counted.
      const giveBack = () =>
        limiters
          .get(action)!
          .reward(client)
          .catch(() => {});
      let outcome: T;
      try {
        outcome = await attempt();
      } catch (err) {
        // Not a failure of the client's (the database did not answer): it is not held against it.
        await giveBack();
        throw err;
      }
      if (succeeded(outcome)) await giveBack();
      return outcome;
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
