import type { TranscriptItem } from "./session-store";

/**
 * Every time and date the UI shows is written here, so two of them side by side always agree
 * ("1:19 PM" next to "1:19 PM", never "01:19 PM"). `locale` and `timeZone` default to the reader's.
 */
export interface TimeOptions {
  locale?: string;
  timeZone?: string;
}

const startOfDay = (t: number) => {
  const d = new Date(t);
  d.setHours(0, 0, 0, 0);
  return d.getTime();
};

const at = (when: string | number | Date) => (typeof when === "string" ? Date.parse(when) : typeof when === "number" ? when : when.getTime());

/** "Today", "Yesterday", "Monday 30 November", or with the year when it is not this year's. */
export function dayLabel(iso: string, now: number = Date.now(), locale?: string): string {
  const t = Date.parse(iso);
  const days = Math.round((startOfDay(now) - startOfDay(t)) / 86_400_000);
  if (days === 0) return "Today";
  if (days === 1) return "Yesterday";
  const sameYear = new Date(t).getFullYear() === new Date(now).getFullYear();
  return new Intl.DateTimeFormat(locale, { weekday: "long", day: "numeric", month: "long", ...(sameYear ? {} : { year: "numeric" }) }).format(t);
}

/** "1:19 PM" or "09:07": the locale's short time, the same wherever a time is shown. */
export function clockTime(when: string | number | Date, { locale, timeZone }: TimeOptions = {}): string {
  return new Intl.DateTimeFormat(locale, { timeZone, timeStyle: "short" }).format(at(when));
}

/** "Dec 3" / "3 Dec", with the year ("Dec 3, 2025") when asked. */
export function shortDate(when: string | number | Date, { locale, timeZone, year = false }: TimeOptions & { year?: boolean } = {}): string {
  return new Intl.DateTimeFormat(locale, { timeZone, day: "numeric", month: "short", ...(year ? { year: "numeric" } : {}) }).format(at(when));
}

/** The full date and time, for a tooltip. */
export function fullTime(when: string | number | Date, { locale, timeZone }: TimeOptions = {}): string {
  return new Intl.DateTimeFormat(locale, { timeZone, dateStyle: "full", timeStyle: "short" }).format(at(when));
}

/** Whether two instants fall on the same calendar day (in `timeZone`, the reader's by default). */
export function sameDay(a: string | number | Date, b: string | number | Date, { timeZone }: TimeOptions = {}): boolean {
  const day = new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" });
  return day.format(at(a)) === day.format(at(b));
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
