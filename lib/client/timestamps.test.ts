import { describe, expect, it } from "vitest";
import type { TranscriptItem } from "./session-store";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { formatWhen } from "./question-audit";
import { clockTime, dayLabel, fullTime, withDays } from "./timestamps";

const local = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).toISOString();
const msg = (id: string, createdAt: string): TranscriptItem => ({ type: "message", message: { id, sessionId: "s", runId: null, role: "user", text: id, createdAt } });

describe("timestamps", () => {
  const now = new Date(2026, 11, 1, 9).getTime();
  it("names today and yesterday, then the date, with the year only when it differs", () => {
    expect(dayLabel(local(2026, 12, 1, 0), now, "en-GB")).toBe("Today");
    expect(dayLabel(local(2026, 11, 30, 23), now, "en-GB")).toBe("Yesterday");
    expect(dayLabel(local(2026, 11, 27), now, "en-GB")).toBe("Friday 27 November");
    expect(dayLabel(local(2025, 11, 27), now, "en-GB")).toBe("Thursday, 27 November 2025");
  });

  it("puts a separator before the first item of each day, and none before a stream", () => {
    const items: TranscriptItem[] = [
      msg("a", local(2026, 11, 30, 10)),
      msg("b", local(2026, 11, 30, 11)),
      msg("c", local(2026, 12, 1, 8)),
      { type: "stream", stream: { runId: "r", seq: 0, text: "…" } },
    ];
    expect(withDays(items).map((i) => (i.type === "day" ? "day" : i.type === "message" ? i.message.id : i.type))).toEqual(["day", "a", "b", "day", "c", "stream"]);
  });
});

describe("one way of writing a time", () => {
  const us = { locale: "en-US", timeZone: "UTC" };
  const when = "2026-12-01T13:19:00Z";

  it("writes the hour unpadded, the same in the transcript and in a question's record", () => {
    expect(clockTime(when, us)).toBe("1:19 PM");
    expect(formatWhen(when, { ...us, now: new Date("2026-12-01T18:00:00Z") })?.short).toBe(clockTime(when, us));
    expect(formatWhen(when, { ...us, now: new Date("2026-12-05T18:00:00Z") })?.short).toBe("Dec 1, 1:19 PM");
    expect(formatWhen(when, us)?.full).toBe(fullTime(when, us));
  });

  it("is the only place in the UI that formats a time", () => {
    const root = join(__dirname, "..", "..");
    const files = ["components", "lib/client", "app"].flatMap((dir) =>
      readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
        .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
        .map((f) => join(dir, f)),
    );
    const formatting = files.filter((f) => f !== join("lib", "client", "timestamps.ts") && /DateTimeFormat|toLocale(Time|Date)?String\(/.test(readFileSync(join(root, f), "utf8")));
    expect(formatting).toEqual([]);
  });
});
