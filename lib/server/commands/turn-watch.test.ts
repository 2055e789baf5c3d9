import { afterEach, describe, expect, it, vi } from "vitest";
import type { Question } from "../../protocol/question";
import type { Run } from "../../protocol/entities";
import { DomainEvents, subscribe } from "../events";
import { watchTurn } from "./turn-watch";

afterEach(() => vi.useRealTimers());

const asked = (sessionId: string) => ({ sessionId }) as Question;
const updated = (sessionId: string) => ({ sessionId }) as Run;

/** What the text channel listens to, here straight from the events. */
const inSession = (events: DomainEvents, sessionId: string) => (heard: () => void) =>
  subscribe(events, { "question.asked": (q) => q.sessionId === sessionId && heard(), "run.updated": (r) => r.sessionId === sessionId && heard() });

describe("watchTurn", () => {
  it("wakes at the session's next question or run change, not another session's", async () => {
    vi.useFakeTimers();
    const events = new DomainEvents();
    const watch = watchTurn(inSession(events, "s1"));
    let woke = false;
    const next = watch.next(10_000).then(() => (woke = true));
    events.emit("question.asked", asked("s2"));
    await Promise.resolve();
    expect(woke).toBe(false);
    events.emit("run.updated", updated("s1"));
    await next;
    expect(woke).toBe(true);
    watch.stop();
  });

  it("a change heard before the wait begins is not missed", async () => {
    const events = new DomainEvents();
    const watch = watchTurn(inSession(events, "s1"));
    events.emit("question.asked", asked("s1"));
    const started = performance.now();
    await watch.next(10_000);
    expect(performance.now() - started).toBeLessThan(1_000);
    watch.stop();
  });

  it("wakes after its time when nothing is heard, and stops listening when stopped", async () => {
    vi.useFakeTimers();
    const events = new DomainEvents();
    const watch = watchTurn(inSession(events, "s1"));
    let woke = false;
    const next = watch.next(250).then(() => (woke = true));
    await vi.advanceTimersByTimeAsync(249);
    expect(woke).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await next;
    expect(woke).toBe(true);
    watch.stop();
    expect(events.listenerCount("question.asked") + events.listenerCount("run.updated")).toBe(0);
  });
});
