import { describe, expect, it } from "vitest";
import { showsCountdown } from "./use-countdown";

const at = (minutes: number) => new Date(Date.parse("2026-12-01T10:00:00Z") + minutes * 60_000).toISOString();

describe("when a card shows its countdown", () => {
  it("not on a 30-minute question with plenty of time left", () => {
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(30) }, 29 * 60)).toBe(false);
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(30) }, 5 * 60)).toBe(false);
  });

  it("once the deadline is under five minutes away, whatever the question's total", () => {
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(30) }, 5 * 60 - 1)).toBe(true);
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(30) }, 0)).toBe(true);
  });

  it("from the start when the asker set a short deadline (five minutes or less)", () => {
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(5) }, 5 * 60)).toBe(true);
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(1 / 3) }, 20)).toBe(true);
    expect(showsCountdown({ createdAt: at(0), expiresAt: at(6) }, 6 * 60)).toBe(false);
  });

  it("never without an expiry", () => {
    expect(showsCountdown({ createdAt: at(0), expiresAt: null }, null)).toBe(false);
  });
});
