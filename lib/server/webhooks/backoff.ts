/** The longest wait between two attempts of a delivery. */
export const MAX_RETRY_DELAY_MS = 3_600_000;

/** How long a delivery is retried: a day after its question settled. */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

/** The wait after a delivery's `attempts`-th failed attempt: `baseMs`, doubled at each failure, at most an hour. */
export function retryDelayMs(attempts: number, baseMs: number): number {
  const doublings = Math.max(0, attempts - 1);
  // 2^31 and more is far past the cap anyway (and keeps the product finite).
  return Math.min(MAX_RETRY_DELAY_MS, baseMs * 2 ** Math.min(doublings, 31));
}
