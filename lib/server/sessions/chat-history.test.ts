import { describe, expect, it } from "vitest";
import { boundHistory } from "./chat-history";

describe("a chat turn's history", () => {
  it("keeps user and agent messages, oldest first, without system messages", () => {
    const rows = [
      { role: "agent", text: "3" },
      { role: "system", text: "x" },
      { role: "user", text: "2" },
      { role: "agent", text: "1" },
    ];
    expect(boundHistory(rows)).toEqual([
      { role: "agent", text: "1" },
      { role: "user", text: "2" },
      { role: "agent", text: "3" },
    ]);
  });

  it("is bounded in messages and bytes, the newest kept", () => {
    const rows = Array.from({ length: 50 }, (_, i) => ({ role: i % 2 ? "agent" : "user", text: `m${i}` }));
    const h = boundHistory(rows, 30);
    expect(h).toHaveLength(30);
    expect(h.at(-1)!.text).toBe("m0");
    const big = Array.from({ length: 10 }, () => ({ role: "user", text: "é".repeat(10_000) }));
    const b = boundHistory(big, 30, 24_000);
    expect(b.length).toBeGreaterThan(0);
    expect(b.reduce((n, m) => n + Buffer.byteLength(m.text), 0)).toBeLessThanOrEqual(24_000);
    expect(b[0]!.text.endsWith("…")).toBe(true);
  });
});
