import { AppError, type ErrorCode } from "../../protocol/errors";
import { MAX_GRANT_MS } from "../../protocol/permissions";

/**
 * When a grant given `until` a time ends, or null for good: the time must be in the future and at
 * most a year away (`code` otherwise: a reply's `invalid_answer`, a rule's `bad_request`).
 */
export function grantEnd(until: string | undefined, { now = Date.now(), code = "bad_request" }: { now?: number; code?: ErrorCode } = {}): Date | null {
  if (until === undefined) return null;
  const end = new Date(until);
  if (!(end.getTime() > now)) throw new AppError(code, `until (${until}) has already passed: a grant ends in the future, or leave until out for good.`);
  if (end.getTime() - now > MAX_GRANT_MS) throw new AppError(code, `until (${until}) is more than a year away: leave until out for a grant for good.`);
  return end;
}
