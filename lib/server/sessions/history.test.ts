import { describe, expect, it } from "vitest";
import { AppError } from "../../protocol/errors";
import { decodeCursor, encodeCursor, takePage } from "./history";

const item = (id: string, ms: number) => ({ id, createdAt: new Date(Date.UTC(2026, 0, 1) + ms).toISOString() });
const newestFirst = <T extends { id: string; createdAt: string }>(xs: T[]) => [...xs].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id));

describe("pages of history", () => {
  it("take the newest items of both kinds together, oldest first, and say where the older ones begin", () => {
    const messages = newestFirst([item("m1", 0), item("m2", 2), item("m3", 4)]);
    const questions = newestFirst([item("q1", 1), item("q2", 3)]);
    const page = takePage(messages, questions, 3);
    expect(page.messages.map((m) => m.id)).toEqual(["m2", "m3"]);
    expect(page.questions.map((q) => q.id)).toEqual(["q2"]);
    expect(page.oldest).toEqual({ at: Date.parse(item("m2", 2).createdAt), id: "m2" });
    expect(takePage(messages, questions, 5).oldest).toBeNull();
  });

  it("order items of one millisecond by id across both kinds", () => {
    const page = takePage(newestFirst([item("b", 0), item("d", 0)]), newestFirst([item("a", 0), item("c", 0)]), 3);
    expect([...page.messages, ...page.questions].map((x) => x.id).sort()).toEqual(["b", "c", "d"]);
    expect(page.oldest?.id).toBe("b");
  });

  it("a cursor comes back as it went; anything else is a bad request", () => {
    const at = { at: 1_767_225_600_123, id: "019b-xyz" };
    expect(decodeCursor(encodeCursor(at))).toEqual(at);
    for (const bad of ["", "nope", Buffer.from('["x","y"]').toString("base64url"), Buffer.from("[1]").toString("base64url")]) {
      expect(() => decodeCursor(bad)).toThrow(AppError);
    }
  });
});
