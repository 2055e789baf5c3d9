import { describe, expect, it } from "vitest";
import type { Question } from "../protocol/question";
import { tabTitle } from "./tab-title";
import { formatCountdown, secondsLeft } from "./use-countdown";

const pending = (prompt: string) => ({ prompt }) as Question;

describe("tab title", () => {
  it("a visible tab shows the session title", () => {
    expect(tabTitle({ title: "Deploy", pending: [pending("Which environment?")], hidden: false })).toBe("Deploy — Parley");
  });

  it("a hidden tab with pending questions shows their count and the first prompt", () => {
    const title = tabTitle({ title: "Deploy", pending: [pending("Which environment?"), pending("Sure?")], hidden: true });
    expect(title).toBe("(2) ❓ Which environment? — Parley");
  });

  it("a hidden tab with nothing pending keeps the session title", () => {
    expect(tabTitle({ title: "Deploy", pending: [], hidden: true })).toBe("Deploy — Parley");
  });

  it("a long prompt is shortened in the tab title", () => {
    const title = tabTitle({ title: null, pending: [pending("x".repeat(200))], hidden: true });
    expect(title.length).toBeLessThan(80);
    expect(title).toContain("…");
  });
});

describe("countdown", () => {
  it("counts whole seconds up and never goes below zero", () => {
    const expiresAt = new Date(10_500).toISOString();
    expect(secondsLeft(expiresAt, 0)).toBe(11);
    expect(secondsLeft(expiresAt, 10_000)).toBe(1);
    expect(secondsLeft(expiresAt, 20_000)).toBe(0);
  });

  it("reads as mm:ss, with hours only when needed", () => {
    expect(formatCountdown(19)).toBe("00:19");
    expect(formatCountdown(30 * 60)).toBe("30:00");
    expect(formatCountdown(3 * 3600 + 5)).toBe("3:00:05");
  });
});
