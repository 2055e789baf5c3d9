import { describe, expect, it } from "vitest";
import { createClusterLink } from "./cluster-link";

describe("the cluster link's queries", () => {
  it("asks nobody without a bus, or while it is lost", async () => {
    const link = createClusterLink("n1");
    expect(await link.ask({ type: "session.streams", sessionId: "s" })).toEqual([]);
    let asked = 0;
    link.attach({ send() {}, status: () => "lost", ask: async () => (asked++, [[]]) });
    expect(await link.ask({ type: "session.streams", sessionId: "s" })).toEqual([]);
    expect(asked).toBe(0);
  });

  it("keeps the answers that match the query's schema and drops the others", async () => {
    const link = createClusterLink("n1");
    const good = [{ runId: "r", seq: 0, text: "Hi" }];
    link.attach({ send() {}, status: () => "connected", ask: async () => [good, [{ runId: 5 }], null] });
    expect(await link.ask({ type: "session.streams", sessionId: "s" })).toEqual([good]);
  });

  it("answers a valid query with its answerer, and a malformed one with null", () => {
    const link = createClusterLink("n1");
    expect(link.answer({ type: "session.streams", sessionId: "s" })).toBeNull();
    link.answerWith((q) => [{ runId: "r", seq: 0, text: q.sessionId }]);
    expect(link.answer({ type: "session.streams", sessionId: "s1" })).toEqual([{ runId: "r", seq: 0, text: "s1" }]);
    expect(link.answer({ type: "session.streams" })).toBeNull();
    expect(link.answer({ type: "drop tables" })).toBeNull();
  });
});
