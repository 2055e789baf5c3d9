import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import type { Message, Run, Session, SessionSnapshot } from "../protocol/entities";
import { DEFAULT_POLICY } from "../protocol/policy";
import type { Question } from "../protocol/question";
import { activeRuns, activeTurn, describeClosed, initialSessionState, latestRun, sessionReducer, transcript, type SessionAction, type SessionState } from "./session-store";

const at = (second: number) => new Date(Date.UTC(2025, 0, 1, 12, 0, second)).toISOString();

const session = (over: Partial<Session> = {}): Session => ({
  id: "s1",
  ownerId: "local",
  title: "Deploy things",
  createdAt: at(0),
  updatedAt: at(0),
  pendingCount: 0,
  shared: false,
  ...over,
});

const message = (id: string, second: number, over: Partial<Message> = {}): Message => ({
  id,
  sessionId: "s1",
  runId: null,
  role: "user",
  text: `message ${id}`,
  createdAt: at(second),
  ...over,
});

const run = (id: string, second: number, over: Partial<Run> = {}): Run => ({
  id,
  ownerId: "local",
  sessionId: "s1",
  functionName: "chat",
  input: {},
  status: "running",
  result: null,
  error: null,
  progress: null,
  policy: DEFAULT_POLICY,
  canAsk: true,
  parentRunId: null,
  rootRunId: id,
  activeMs: 0,
  attempts: 1,
  holdsTurn: false,
  startedBy: null,
  starterId: null,
  createdAt: at(second),
  updatedAt: at(second),
  finishedAt: null,
  ...over,
});

const question = (id: string, second: number, over: Partial<Question> = {}): Question =>
  aQuestion({ id, pendingId: `p-${id}`, targetDigest: `d-${id}`, prompt: `question ${id}?`, createdAt: at(second), ...over });

const snapshot = (over: Partial<SessionSnapshot> = {}): SessionSnapshot => ({
  session: session(),
  messages: [],
  runs: [],
  pendingQuestions: [],
  closedQuestions: [],
  before: null,
  ...over,
});

const apply = (state: SessionState, ...actions: SessionAction[]) => actions.reduce(sessionReducer, state);
const joined = (over: Partial<SessionSnapshot> = {}) => apply(initialSessionState, { type: "snapshot", snapshot: snapshot(over) });

describe("session store", () => {
  it("a snapshot replaces everything the view held", () => {
    const before = apply(joined({ messages: [message("m1", 1)] }), { type: "question.asked", question: question("q1", 2) });
    const after = sessionReducer(before, {
      type: "snapshot",
      snapshot: snapshot({ messages: [message("m2", 3)], runs: [run("r2", 3)], pendingQuestions: [question("q2", 4)] }),
    });
    expect(after.messages.map((m) => m.id)).toEqual(["m2"]);
    expect(after.runs.map((r) => r.id)).toEqual(["r2"]);
    expect(after.pending.map((q) => q.id)).toEqual(["q2"]);
  });

  it("a reconnect snapshot keeps the older history the view had loaded when the two meet, and drops it across a gap", () => {
    const answered = question("q1", 1, { status: "answered", answer: "staging" });
    const loaded = apply(
      joined({ messages: [message("m3", 3), message("m4", 4)], before: "c3" }),
      { type: "history", sessionId: "s1", cursor: "c3", page: { messages: [message("m2", 2)], closedQuestions: [answered], runs: [], before: "c1" } },
      { type: "message.created", message: message("m5", 5) },
    );
    expect(loaded.messages.map((m) => m.id)).toEqual(["m2", "m3", "m4", "m5"]);
    expect(loaded.before).toBe("c1");
    // The new snapshot's page starts at m4: what came before it here is kept, and where the older history begins.
    const met = sessionReducer(loaded, { type: "snapshot", snapshot: snapshot({ messages: [message("m4", 4), message("m5", 5), message("m6", 6)], before: "c4" }) });
    expect(met.messages.map((m) => m.id)).toEqual(["m2", "m3", "m4", "m5", "m6"]);
    expect(met.closed).toEqual([answered]);
    expect(met.before).toBe("c1");
    // A snapshot whose page starts after everything this view had (more was said meanwhile than a page holds): a fresh start.
    const gap = sessionReducer(loaded, { type: "snapshot", snapshot: snapshot({ messages: [message("m7", 7), message("m8", 8)], before: "c7" }) });
    expect(gap.messages.map((m) => m.id)).toEqual(["m7", "m8"]);
    expect(gap.closed).toEqual([]);
    expect(gap.before).toBe("c7");
  });

  it("a page of history is merged only into the view that asked for it", () => {
    const state = joined({ messages: [message("m3", 3)], before: "c3" });
    const page = { messages: [message("m1", 1)], closedQuestions: [], runs: [], before: null };
    expect(sessionReducer(state, { type: "history", sessionId: "s1", cursor: "c2", page })).toBe(state);
    expect(sessionReducer(state, { type: "history", sessionId: "other", cursor: "c3", page })).toBe(state);
    const merged = sessionReducer(state, { type: "history", sessionId: "s1", cursor: "c3", page });
    expect(merged.messages.map((m) => m.id)).toEqual(["m1", "m3"]);
    expect(merged.before).toBeNull();
  });

  it("a snapshot of another session drops the previous session's records", () => {
    const before = apply(joined(), { type: "question.rejected", question: question("q1", 1, { status: "cancelled" }) });
    const after = sessionReducer(before, { type: "snapshot", snapshot: snapshot({ session: session({ id: "s2" }) }) });
    expect(after.closed).toEqual([]);
  });

  it("messages are deduplicated by id and kept in creation order", () => {
    const state = apply(
      joined({ messages: [message("m2", 2)] }),
      { type: "message.created", message: message("m3", 3) },
      { type: "message.created", message: message("m1", 1) },
      { type: "message.created", message: message("m2", 2) },
    );
    expect(state.messages.map((m) => m.id)).toEqual(["m1", "m2", "m3"]);
  });

  it("messages of one millisecond are ordered by id, as the server lists them, whatever order they arrive in", () => {
    const ids = ["01a2-a", "01a2-b", "01a2-c"];
    const live = apply(joined(), ...[2, 0, 1].map((i) => ({ type: "message.created" as const, message: message(ids[i]!, 5) })));
    expect(live.messages.map((m) => m.id)).toEqual(ids);
    expect(joined({ messages: [2, 0, 1].map((i) => message(ids[i]!, 5)) }).messages.map((m) => m.id)).toEqual(ids);
  });

  it("events for another session are ignored", () => {
    const state = apply(
      joined(),
      { type: "message.created", message: message("m1", 1, { sessionId: "other" }) },
      { type: "question.asked", question: question("q1", 1, { sessionId: "other" }) },
      { type: "run.updated", run: run("r1", 1, { sessionId: "other" }) },
      { type: "session.updated", session: session({ id: "other", title: "Other" }) },
    );
    expect(state).toEqual(joined());
  });

  it("a run update replaces the run with the same id", () => {
    const state = apply(joined({ runs: [run("r1", 1)] }), { type: "run.updated", run: run("r1", 1, { status: "waiting_input", updatedAt: at(2) }) }, { type: "run.updated", run: run("r2", 3) });
    expect(state.runs.map((r) => [r.id, r.status])).toEqual([
      ["r1", "waiting_input"],
      ["r2", "running"],
    ]);
    expect(latestRun(state)?.id).toBe("r2");
  });

  it("a stale run update that arrives after a fresher snapshot is ignored", () => {
    const fresh = run("r1", 1, { status: "succeeded", updatedAt: at(5) });
    const state = apply(joined({ runs: [fresh] }), { type: "run.updated", run: run("r1", 1, { updatedAt: at(2) }) });
    expect(state.runs).toEqual([fresh]);
  });

  it("active runs are the ones running or waiting for input", () => {
    const state = joined({
      runs: [run("r1", 1, { status: "succeeded" }), run("r2", 2, { status: "waiting_input" }), run("r3", 3)],
    });
    expect(activeRuns(state).map((r) => r.id)).toEqual(["r2", "r3"]);
  });

  it("the active turn is the run that holds the session's turn while it runs; a run started beside it is not", () => {
    const side = run("side", 1);
    expect(activeTurn(joined({ runs: [side] }))).toBeNull();
    const turn = run("turn", 2, { holdsTurn: true });
    expect(activeTurn(joined({ runs: [side, turn] }))?.id).toBe("turn");
    expect(activeTurn(joined({ runs: [side, { ...turn, status: "succeeded", holdsTurn: false }] }))).toBeNull();
  });

  it("the current run is the latest run a person started, not a nested one", () => {
    const state = joined({ runs: [run("r1", 1), run("child", 2, { parentRunId: "r1", rootRunId: "r1" })] });
    expect(latestRun(state)?.id).toBe("r1");
  });

  it("stopping targets the outermost active runs, since a stop ends the nested ones too", () => {
    const state = joined({
      runs: [run("r1", 1), run("child", 2, { parentRunId: "r1", rootRunId: "r1" }), run("r2", 3, { status: "succeeded" }), run("orphan", 4, { parentRunId: "r2", rootRunId: "r2" })],
    });
    expect(activeRuns(state).map((r) => r.id)).toEqual(["r1", "orphan"]);
  });

  it("a new pending question becomes a card, in creation order", () => {
    const state = apply(joined(), { type: "question.asked", question: question("q2", 2) }, { type: "question.asked", question: question("q1", 1) });
    expect(state.pending.map((q) => q.id)).toEqual(["q1", "q2"]);
  });

  it("a question asked twice shows one card", () => {
    const state = apply(joined({ pendingQuestions: [question("q1", 1)] }), { type: "question.asked", question: question("q1", 1) });
    expect(state.pending).toHaveLength(1);
  });

  it("an asked event for a question that is no longer pending adds no card", () => {
    const state = apply(joined(), { type: "question.asked", question: question("q1", 1, { status: "answered", answer: "x" }) });
    expect(state.pending).toEqual([]);
  });

  it("a retraction removes the card and records what was answered", () => {
    const answered = question("q1", 1, { status: "answered", answer: "production", closedAt: at(3) });
    const state = apply(joined({ pendingQuestions: [question("q1", 1), question("q2", 2)] }), {
      type: "question.replied",
      question: answered,
    });
    expect(state.pending.map((q) => q.id)).toEqual(["q2"]);
    expect(state.closed).toEqual([answered]);
    expect(describeClosed(state.closed[0]!)).toBe("answered: production");
    const form = { ...state.closed[0]!, replySchema: { type: "object", properties: { where: { type: "string", title: "Destination" } } }, answer: { where: "Lisbon" } };
    expect(describeClosed(form)).toBe("answered: Destination: Lisbon");
  });

  it("a decline removes the card and records the feedback", () => {
    const declined = question("q1", 1, { status: "declined", feedback: "not today" });
    const state = apply(joined({ pendingQuestions: [question("q1", 1)] }), { type: "question.rejected", question: declined });
    expect(state.pending).toEqual([]);
    expect(describeClosed(state.closed[0]!)).toBe("declined: “not today”");
  });

  it("a timeout, a cancel or an expiry removes the card and says how it ended", () => {
    const state = apply(
      joined({ pendingQuestions: [question("q1", 1), question("q2", 2), question("q3", 3)] }),
      { type: "question.rejected", question: question("q1", 1, { status: "timed_out", hasDefault: true, default: "12:30" }) },
      { type: "question.rejected", question: question("q2", 2, { status: "cancelled" }) },
      { type: "question.rejected", question: question("q3", 3, { status: "expired" }) },
    );
    expect(state.pending).toEqual([]);
    expect(state.closed.map(describeClosed)).toEqual(["timed out → default: 12:30", "cancelled", "expired"]);
  });

  it("a late asked event cannot resurrect a question that already closed", () => {
    const state = apply(joined(), { type: "question.replied", question: question("q1", 1, { status: "answered", answer: "staging" }) }, { type: "question.asked", question: question("q1", 1) });
    expect(state.pending).toEqual([]);
  });

  it("a retraction that arrives twice records the question once", () => {
    const answered = question("q1", 1, { status: "answered", answer: "staging" });
    const state = apply(joined({ pendingQuestions: [question("q1", 1)] }), { type: "question.replied", question: answered }, { type: "question.replied", question: answered });
    expect(state.closed).toHaveLength(1);
  });

  it("a confirm's answer reads as Yes or No and a multi answer as a list", () => {
    expect(describeClosed(question("q1", 1, { kind: "confirm", status: "answered", answer: true }))).toBe("answered: Yes");
    expect(describeClosed(question("q2", 1, { kind: "confirm", status: "answered", answer: false }))).toBe("answered: No");
    expect(describeClosed(question("q3", 1, { multi: true, status: "answered", answer: ["Basil", "Olives"] }))).toBe("answered: Basil, Olives");
  });

  it("an answer that is other JSON reads as JSON", () => {
    expect(describeClosed(question("q1", 1, { status: "answered", answer: { name: "Moonbeam", year: 2025 } }))).toBe('answered: {"name":"Moonbeam","year":2025}');
  });

  it("a session update changes the title of the joined session only", () => {
    const state = apply(joined(), { type: "session.updated", session: session({ title: "Renamed", pendingCount: 2 }) });
    expect(state.session?.title).toBe("Renamed");
  });

  it("the transcript interleaves messages and question records by time", () => {
    const state = apply(joined({ messages: [message("m1", 1), message("m2", 5, { role: "agent" })] }), {
      type: "question.replied",
      question: question("q1", 3, { status: "answered", answer: "staging" }),
    });
    expect(transcript(state).map(idOf)).toEqual(["m1", "q1", "m2"]);
  });

  it("keeps each run's messages, questions and child runs together where the run started, so parallel runs don't interleave", () => {
    const state = joined({
      messages: [
        message("you-a", 0),
        message("a1", 2, { role: "agent", runId: "ra" }),
        message("b1", 3, { role: "agent", runId: "rb" }),
        message("a2", 4, { role: "agent", runId: "ra-child" }),
        message("b2", 5, { role: "system", runId: "rb" }),
      ],
      runs: [run("ra", 1, { status: "succeeded" }), run("ra-child", 2, { parentRunId: "ra", rootRunId: "ra", functionName: "order-coffee", status: "succeeded" }), run("rb", 2, { status: "running" })],
    });
    expect(transcript(state).map(idOf)).toEqual(["you-a", "a1", "run:ra-child", "a2", "run:rb", "b1", "b2"]);
  });

  it("puts a person's message first in the block of the turn it started, even before the run arrived", () => {
    const typed = message("you", 2, { runId: "r1" });
    expect(transcript(joined({ messages: [typed], runs: [run("r1", 1, { status: "running" })] })).map(idOf)).toEqual(["you", "run:r1"]);
    expect(transcript(joined({ messages: [message("old", 0), typed] })).map(idOf)).toEqual(["old", "you"]);
  });

  it("gives a run its own line while it works, and a child run once it ended; a finished root run has none", () => {
    const lines = (runs: Run[]) => transcript(joined({ runs })).map(idOf);
    expect(lines([run("r1", 1, { status: "waiting_input" })])).toEqual(["run:r1"]);
    expect(lines([run("r1", 1, { status: "succeeded" }), run("c1", 2, { parentRunId: "r1", rootRunId: "r1", status: "failed" })])).toEqual(["run:c1"]);
    expect(lines([run("r1", 1, { status: "cancelled" })])).toEqual([]);
  });
});

const idOf = (item: ReturnType<typeof transcript>[number]) =>
  item.type === "message" ? item.message.id : item.type === "question" ? item.question.id : item.type === "run" ? `run:${item.run.id}` : `stream:${item.stream.runId}`;

describe("streaming replies", () => {
  const delta = (runId: string, seq: number, at: number, text: string) => ({ type: "message.delta" as const, delta: { sessionId: "s1", runId, seq, at, delta: text } });
  const textOf = (state: SessionState) => state.streams.map((s) => `${s.runId}:${s.seq}=${s.text}`);

  it("appends deltas to streams keyed by run and seq, shown after the settled transcript", () => {
    const state = apply(joined({ messages: [message("m1", 1)] }), delta("r1", 0, 0, "Hel"), delta("r2", 4, 0, "Other"), delta("r1", 0, 3, "lo"));
    expect(textOf(state)).toEqual(["r1:0=Hello", "r2:4=Other"]);
    expect(transcript(state).map((i) => i.type)).toEqual(["message", "stream", "stream"]);
  });

  it("starts from the snapshot's text and skips a delta it already has (events during a join come twice)", () => {
    const state = apply(joined({ streaming: [{ runId: "r1", seq: 0, text: "Hello, wor" }] }), delta("r1", 0, 7, "wor"), delta("r1", 0, 10, "ld"));
    expect(textOf(state)).toEqual(["r1:0=Hello, world"]);
  });

  it("ignores a gap, and starts again when a replayed reply streams from its start", () => {
    let state = apply(joined(), delta("r1", 0, 5, "late"));
    expect(state.streams).toEqual([]);
    state = apply(state, delta("r1", 0, 0, "abc"), delta("r1", 0, 9, "gap"));
    expect(textOf(state)).toEqual(["r1:0=abc"]);
    state = apply(state, delta("r1", 0, 0, "again"));
    expect(textOf(state)).toEqual(["r1:0=again"]);
  });

  it("the stored message replaces its stream, a stopped one keeps its mark", () => {
    const state = apply(joined(), delta("r1", 0, 0, "partial"), delta("r1", 3, 0, "second"), {
      type: "message.created",
      message: message("m9", 9, { role: "agent", runId: "r1", text: "partial", stopped: true }),
    });
    expect(textOf(state)).toEqual(["r1:3=second"]);
    expect(transcript(state).map((i) => (i.type === "message" ? `${i.message.text}${i.message.stopped ? " (stopped)" : ""}` : i.type))).toEqual(["partial (stopped)", "stream"]);
  });

  it("a user message or another run's message leaves the stream alone; the run's end drops it", () => {
    let state = apply(joined({ runs: [run("r1", 0)] }), delta("r1", 0, 0, "text"), { type: "message.created", message: message("u1", 2, { role: "user", text: "text" }) });
    state = apply(state, { type: "message.created", message: message("a1", 3, { role: "agent", runId: "r2", text: "text" }) });
    expect(textOf(state)).toEqual(["r1:0=text"]);
    state = apply(state, { type: "run.updated", run: run("r1", 0, { status: "cancelled", updatedAt: at(10) }) });
    expect(state.streams).toEqual([]);
  });

  it("a snapshot replaces the streams", () => {
    const state = apply(joined(), delta("r1", 0, 0, "old"), { type: "snapshot", snapshot: snapshot({ streaming: [{ runId: "r2", seq: 1, text: "new" }] }) });
    expect(textOf(state)).toEqual(["r2:1=new"]);
  });
});

describe("a question that changes while it waits (votes, escalations)", () => {
  const vote = (user: string, second: number) => ({ user, decision: "allow" as const, at: at(second), feedback: null });
  const approvals = { required: 2, from: null, rejections: 1 };
  const asked = question("q1", 1, { kind: "approval", answerers: ["bob", "carol", "dave"], approvals });
  const votedBy = (...users: string[]) => ({ ...asked, votes: users.map((u, i) => vote(u, 2 + i)) });
  const updated = (q: Question): SessionAction => ({ type: "question.updated", question: q });

  it("replaces the card's question with the one that carries the new vote", () => {
    const state = apply(joined({ pendingQuestions: [asked, question("q2", 5)] }), updated(votedBy("bob")));
    expect(state.pending.map((q) => [q.id, q.votes.map((v) => v.user)])).toEqual([
      ["q1", ["bob"]],
      ["q2", []],
    ]);
    expect(state.closed).toEqual([]);
  });

  it("an update that comes after the question closed does not bring its card back", () => {
    const settled = { ...votedBy("bob", "carol"), status: "answered" as const, answer: "once" };
    const state = apply(joined({ pendingQuestions: [asked] }), { type: "question.replied", question: settled }, updated(votedBy("bob")));
    expect(state.pending).toEqual([]);
    expect(state.closed).toEqual([settled]);
  });

  it("the closing that comes after an update closes it", () => {
    const settled = { ...votedBy("bob", "carol"), status: "answered" as const, answer: "once" };
    const state = apply(joined({ pendingQuestions: [asked] }), updated(votedBy("bob")), { type: "question.replied", question: settled });
    expect(state.pending).toEqual([]);
    expect(state.closed.map((q) => q.votes.length)).toEqual([2]);
  });

  it("an older update that arrives after a newer one (or after a fresher snapshot) is ignored", () => {
    const late = apply(joined({ pendingQuestions: [asked] }), updated(votedBy("bob", "dave")), updated(votedBy("bob")));
    expect(late.pending[0]!.votes.map((v) => v.user)).toEqual(["bob", "dave"]);
    const afterSnapshot = apply(joined({ pendingQuestions: [votedBy("bob")] }), updated(asked));
    expect(afterSnapshot.pending[0]!.votes.map((v) => v.user)).toEqual(["bob"]);
    const escalated = { ...question("q3", 1, { answerers: ["carol"], escalate: [{ afterMs: 1000, to: ["bob"] }] }) };
    const notBack = apply(joined({ pendingQuestions: [{ ...escalated, escalated: 1 }] }), updated(escalated));
    expect(notBack.pending[0]!.escalated).toBe(1);
  });

  it("an update before its asked event shows the card once, and the late asked event does not undo the vote", () => {
    const state = apply(joined(), updated(votedBy("bob")), { type: "question.asked", question: asked });
    expect(state.pending.map((q) => [q.id, q.votes.length])).toEqual([["q1", 1]]);
  });

  it("an update of another session, or one that says it is no longer pending, changes nothing", () => {
    const before = joined({ pendingQuestions: [asked] });
    expect(apply(before, updated({ ...votedBy("bob"), sessionId: "other" }))).toEqual(before);
    expect(apply(before, updated({ ...votedBy("bob"), status: "answered" }))).toEqual(before);
  });
});
