import { describe, expect, it } from "vitest";
import type { Message } from "../protocol/entities";
import type { TranscriptItem } from "./session-store";
import { dayLabel, withDays } from "./timestamps";

const local = (y: number, m: number, d: number, h = 12) => new Date(y, m - 1, d, h).toISOString();
const msg = (id: string, createdAt: string): TranscriptItem => ({ type: "message", message: { id, sessionId: "s", runId: null, role: "user", text: id, createdAt } as Message });

describe("timestamps", () => {
  const now = new Date(2026, 11, 1, 9).getTime();
  it("names today and yesterday, then the date, with the year only when it differs", () => {
    expect(dayLabel(local(2026, 12, 1, 0), now, "en-GB")).toBe("Today");
    expect(dayLabel(local(2026, 11, 30, 23), now, "en-GB")).toBe("Yesterday");
    expect(dayLabel(local(2026, 11, 27), now, "en-GB")).toBe("Friday 27 November");
    expect(dayLabel(local(2025, 11, 27), now, "en-GB")).toBe("Thursday, 27 November 2025");
  });

  it("puts a separator before the first item of each day, and none before a stream", () => {
    const items: TranscriptItem[] = [msg("a", local(2026, 11, 30, 10)), msg("b", local(2026, 11, 30, 11)), msg("c", local(2026, 12, 1, 8)), { type: "stream", stream: { runId: "r", seq: 0, text: "…" } }];
    expect(withDays(items).map((i) => (i.type === "day" ? "day" : i.type === "message" ? i.message.id : i.type))).toEqual(["day", "a", "b", "day", "c", "stream"]);
  });
});
