import { describe, expect, it } from "vitest";
import { relativeTime } from "./relative-time";

const at = (y: number, m: number, d: number, h = 12, min = 0, s = 0) => new Date(y, m - 1, d, h, min, s).getTime();
const iso = (t: number) => new Date(t).toISOString();

describe("relative times in the chat list", () => {
  const now = at(2026, 12, 1, 15, 30);

  it("says just now under a minute, and never a time in the future", () => {
    expect(relativeTime(iso(now - 10_000), now)).toBe("just now");
    expect(relativeTime(iso(now + 60_000), now)).toBe("just now");
  });

  it("counts minutes, then hours within the same day", () => {
    expect(relativeTime(iso(now - 60_000), now)).toBe("1 minute ago");
    expect(relativeTime(iso(now - 5 * 60_000), now)).toBe("5 minutes ago");
    expect(relativeTime(iso(now - 59 * 60_000), now)).toBe("59 minutes ago");
    expect(relativeTime(iso(now - 3 * 3_600_000), now)).toBe("3 hours ago");
  });

  it("names yesterday by the calendar, then days, then the date", () => {
    expect(relativeTime(iso(at(2026, 11, 30, 23, 0)), now)).toBe("yesterday");
    expect(relativeTime(iso(at(2026, 11, 30, 23, 50)), at(2026, 12, 1, 0, 10))).toBe("20 minutes ago");
    expect(relativeTime(iso(at(2026, 11, 30, 22, 0)), at(2026, 12, 1, 0, 10))).toBe("yesterday");
    expect(relativeTime(iso(at(2026, 11, 27, 9)), now)).toBe("4 days ago");
    expect(relativeTime(iso(at(2026, 11, 3, 9)), now)).toBe("Nov 3");
    expect(relativeTime(iso(at(2025, 11, 3, 9)), now)).toBe("Nov 3, 2025");
  });

  it("an invalid time says nothing", () => {
    expect(relativeTime("not a date", now)).toBe("");
  });
});
