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

  /** Attempts of failuresOnly not yet known to have failed, by action and key, on this node. */
  const inFlight = new Map<string, number>();

  /** Attempts waiting for one of their key's to end. */
  const waiting = new Map<string, Array<() => void>>();
  /** An attempt ended (its failure counted): the ones waiting look again. */
  function ended(flying: string): void {
    const left = inFlight.get(flying)! - 1;
    if (left === 0) inFlight.delete(flying);
    else inFlight.set(flying, left);
    const woken = waiting.get(flying);
    waiting.delete(flying);
    for (const wake of woken ?? []) wake();
  }

  function limitedError(action: LimitedAction, msBeforeNext: number): AppError {
    const retryAfterSeconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
    return new AppError("rate_limited", `Too many requests (${action}); try again in ${retryAfterSeconds} s.`, { details: { retryAfterSeconds } });
  }

  async function take(action: LimitedAction, client: string): Promise<void> {
    if (off) return;
    try {
      await limiters.get(action)!.consume(client);
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      throw limitedError(action, res.msBeforeNext);
    }
  }

  return {
    /** Counts one action of a client; over the limit throws `rate_limited` with the seconds to wait. */
    take,

    /**
     * Only failures use up the allowance, counted once known. So that a burst sent at once cannot
     * outrun the count, no more attempts of a key are in flight on this node than failures it has
     * left: the others wait for one to end (a burst of right ones is let through a few at a time,
     * one of guesses refused once they have failed). A success never takes a point. Once a key's failures reach the limit its
     * attempts are refused until the window ends, a right one too (its answer would tell a right
     * guess from a wrong one), unless `trusted`: a credential that succeeded before.
     */
    async failuresOnly<T>(action: LimitedAction, key: string, attempt: () => Promise<T>, succeeded: (outcome: T) => boolean, { trusted = false }: { trusted?: boolean } = {}): Promise<T> {
      if (off) return attempt();
      const limiter = limiters.get(action)!;
      const flying = `${action}\u0000${key}`;
      const { points, duration } = sizes.get(action)!;
      while (!trusted) {
        // Redis lost meanwhile: nothing is known of the failures; the attempt is not refused for Redis's sake.
        const counted = await limiter.get(key).catch(() => null);
        const failed = counted?.consumedPoints ?? 0;
        if (failed >= points) throw limitedError(action, counted?.msBeforeNext ?? duration * 1000);
        if (failed + (inFlight.get(flying) ?? 0) < points) break;
        await new Promise<void>((resolve) => waiting.set(flying, [...(waiting.get(flying) ?? []), resolve]));
      }
      inFlight.set(flying, (inFlight.get(flying) ?? 0) + 1);
      let outcome: T;
      try {
        // Thrown (the database did not answer): not a failure of the client's, not held against it.
        outcome = await attempt();
      } catch (err) {
        ended(flying);
        throw err;
      }
      if (!succeeded(outcome)) await limiter.penalty(key, 1).catch(() => {});
      ended(flying);
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
