import type { TranscriptItem } from "./session-store";

/** When transcript items happened, as a person reads it: a day separator, a time on hover. */

const startOfDay = (t: number) => {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
};

/** "Today", "Yesterday", "Monday 30 November", or with the year when it is not this year's. */
export function dayLabel(iso: string, now: number = Date.now(), locale?: string): string {
  const t = Date.parse(iso);
  const days = Math.round((startOfDay(now) - startOfDay(t)) / 86_400_000);
  if (days === 0) return "Today";
  if (days === 1) return "Yesterday";
  const sameYear = new Date(t).getFullYear() === new Date(now).getFullYear();
  return new Intl.DateTimeFormat(locale, { weekday: "long", day: "numeric", month: "long", ...(sameYear ? {} : { year: "numeric" }) }).format(t);
}

/** "14:05" (or the locale's way of writing a time). */
export function clockTime(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { hour: "numeric", minute: "2-digit" }).format(Date.parse(iso));
}

/** The full date and time, for a tooltip. */
export function fullTime(iso: string, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { dateStyle: "full", timeStyle: "short" }).format(Date.parse(iso));
}

/** When an item happened (a question record: when it closed); a stream is happening now. */
export function itemTime(item: TranscriptItem): string | null {
  switch (item.type) {
    case "message":
      return item.message.createdAt;
    case "question":
      return item.question.closedAt ?? item.question.createdAt;
    case "run":
      return item.run.createdAt;
    case "stream":
      return null;
  }
}

/** The items with a day separator before the first one of each day. */
export function withDays(items: TranscriptItem[]): Array<TranscriptItem | { type: "day"; day: string; at: string }> {
  const out: Array<TranscriptItem | { type: "day"; day: string; at: string }> = [];
  let lastDay: number | null = null;
  for (const item of items) {
    const at = itemTime(item);
    if (at !== null) {
      const day = startOfDay(Date.parse(at));
      if (day !== lastDay) out.push({ type: "day", day: String(day), at });
      lastDay = day;
    }
    out.push(item);
  }
  return out;
}
