import { useEffect, useState } from "react";

/** Whole seconds left until `expiresAt` (never below 0). */
export function secondsLeft(expiresAt: string, now: number): number {
  return Math.max(0, Math.ceil((Date.parse(expiresAt) - now) / 1000));
}

/** "mm:ss", or "h:mm:ss" from an hour up. */
export function formatCountdown(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const pad = (n: number) => String(n).padStart(2, "0");
  return h > 0 ? `${h}:${pad(m)}:${pad(s)}` : `${pad(m)}:${pad(s)}`;
}

/** Under this many seconds left, every countdown shows. */
export const NEAR_DEADLINE_SECONDS = 5 * 60;

/**
 * Whether a card shows its countdown: only when the deadline is near (under 5 minutes left) or
 * the asker set a short one (5 minutes or less in all), not an amber "30:00" on every card.
 */
export function showsCountdown(q: { createdAt: string; expiresAt: string | null }, secondsLeftNow: number | null): boolean {
  if (q.expiresAt === null || secondsLeftNow === null) return false;
  if (secondsLeftNow < NEAR_DEADLINE_SECONDS) return true;
  const total = (Date.parse(q.expiresAt) - Date.parse(q.createdAt)) / 1000;
  return Number.isFinite(total) && total <= NEAR_DEADLINE_SECONDS;
}

/** Seconds left until an ISO time, ticking each second; null when there is no expiry. */
export function useCountdown(expiresAt: string | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!expiresAt) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [expiresAt]);
  return expiresAt ? secondsLeft(expiresAt, now) : null;
}
