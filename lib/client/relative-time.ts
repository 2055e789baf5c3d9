import { useEffect, useState } from "react";
import { shortDate } from "./timestamps";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const relative = new Intl.RelativeTimeFormat("en", { numeric: "auto" });

/** Midnight of the calendar day `t` falls on, in local time. */
const startOfDay = (t: number) => new Date(t).setHours(0, 0, 0, 0);

/**
 * How long ago something happened, as a chat list says it: "just now", "5 minutes ago",
 * "2 hours ago", "yesterday", "3 days ago", then the date ("Nov 3", "Nov 3, 2025" in another year).
 * Calendar days decide "yesterday": 23:50 seen at 00:10 is yesterday, not "20 minutes ago" … unless it is under an hour old.
 */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return "";
  const ago = Math.max(0, now - t);
  if (ago < MINUTE) return "just now";
  if (ago < HOUR) return relative.format(-Math.floor(ago / MINUTE), "minute");
  const days = Math.round((startOfDay(now) - startOfDay(t)) / DAY);
  if (days === 0) return relative.format(-Math.floor(ago / HOUR), "hour");
  if (days < 7) return relative.format(-days, "day");
  return shortDate(t, { locale: "en", year: new Date(t).getFullYear() !== new Date(now).getFullYear() });
}

/** The current time, refreshed every `everyMs` (relative times stay true while a page stays open). */
export function useNow(everyMs = MINUTE): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
