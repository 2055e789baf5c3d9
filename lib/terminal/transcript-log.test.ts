import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { Message } from "../protocol/entities";
import { initialSessionState, type SessionState } from "../client/session-store";
import { questionRecord, unprinted, withBacklog } from "./transcript-log";

const message = (id: string, at: number, role: Message["role"] = "agent"): Message => ({
  id,
  sessionId: "s1",
  runId: null,
  role,
  text: `text ${id}`,
  createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, at)).toISOString(),
});

const state = (over: Partial<SessionState>): SessionState => ({ ...initialSessionState, ...over });

describe("the terminal's transcript log", () => {
  it("prints messages and closed questions once, in transcript order", () => {
    const closed = aQuestion({ id: "q1", status: "answered", answer: "staging", closedBy: "socket", createdAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 5)).toISOString() });
    const s = state({ messages: [message("m1", 1, "user"), message("m2", 9)], closed: [closed] });
    expect(unprinted(s, new Set()).map((e) => e.key)).toEqual(["m:m1", "q:q1", "m:m2"]);
    expect(unprinted(s, new Set(["m:m1", "q:q1"])).map((e) => e.key)).toEqual(["m:m2"]);
  });

  it("leaves out streams (drawn live) and pending questions (the prompt shows them)", () => {
    const s = state({ streams: [{ runId: "r1", seq: 1, text: "partial" }], pending: [aQuestion()] });
    expect(unprinted(s, new Set())).toEqual([]);
  });

  it("shows a long history's latest entries after a line counting the rest", () => {
    const entries = unprinted(state({ messages: Array.from({ length: 45 }, (_, i) => message(`m${i}`, i)) }), new Set());
    const shown = withBacklog(entries, 40);
    expect(shown).toHaveLength(41);
    expect(shown[0]).toMatchObject({ type: "notice", text: expect.stringContaining("5 earlier entries") });
    expect(shown[1]).toMatchObject({ key: "m:m5" });
    expect(withBacklog(entries.slice(0, 3), 40)).toHaveLength(3);
  });

  it("words a closed question as the browser's audit does, with a readable owner", () => {
    const q = aQuestion({ owner: "order-coffee", prompt: "Which drink?", status: "answered", answer: "Tea", closedBy: "terminal" });
    expect(questionRecord(q)).toEqual({ asked: "Order coffee asked: Which drink?", outcome: 'Answered "Tea", in a terminal' });
    // Who answered: the person at this terminal reads "by you"; the administrator is "Administrator" to others.
    expect(questionRecord({ ...q, closedByUser: "local" }, "local").outcome).toBe('Answered "Tea" by you, in a terminal');
    expect(questionRecord({ ...q, closedByUser: "local" }, "alice").outcome).toBe('Answered "Tea" by Administrator, in a terminal');
    expect(questionRecord({ ...q, closedByUser: "bob" }, "alice").outcome).toBe('Answered "Tea" by bob, in a terminal');
  });
});
