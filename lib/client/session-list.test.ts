import { describe, expect, it } from "vitest";
import type { Session } from "../protocol/entities";
import { upsertSession } from "./session-list";

const session = (id: string, second: number, over: Partial<Session> = {}): Session => ({
  id,
  ownerId: "local",
  title: `chat ${id}`,
  createdAt: new Date(Date.UTC(2025, 0, 1)).toISOString(),
  updatedAt: new Date(Date.UTC(2025, 0, 1, 0, 0, second)).toISOString(),
  pendingCount: 0,
  shared: false,
  ...over,
});

describe("session list", () => {
  it("a new session joins the list, most recently updated first", () => {
    const list = upsertSession([session("a", 2), session("b", 1)], session("c", 3));
    expect(list.map((s) => s.id)).toEqual(["c", "a", "b"]);
  });

  it("an updated session replaces its old entry and moves up", () => {
    const list = upsertSession([session("a", 2), session("b", 1)], session("b", 5, { pendingCount: 1 }));
    expect(list.map((s) => [s.id, s.pendingCount])).toEqual([
      ["b", 1],
      ["a", 0],
    ]);
  });
});

describe("deleted sessions", () => {
  it("leave the list", async () => {
    const { removeSession } = await import("./session-list");
    expect(removeSession([session("a", 2), session("b", 1)], "a").map((s) => s.id)).toEqual(["b"]);
  });
});
