import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { PRESENCE_REFRESH_MS, type DevicePresence } from "../../protocol/push";
import { createPresenceReporter, presenceOf, type PresenceState } from "./presence";

describe("a tab's presence", () => {
  let state: PresenceState;
  let said: DevicePresence[];
  const reporter = () =>
    createPresenceReporter({
      read: () => state,
      emit: (p) => said.push(p),
      timers: { setInterval: (fn, ms) => setInterval(fn, ms), clearInterval: (h) => clearInterval(h as ReturnType<typeof setInterval>) },
    });

  beforeEach(() => {
    vi.useFakeTimers();
    state = { sessionId: "s1", subscriptionId: "sub1", visible: true, focused: true };
    said = [];
  });
  afterEach(() => vi.useRealTimers());

  it("is the session only while visible and focused", () => {
    expect(presenceOf(state)).toEqual({ subscriptionId: "sub1", sessionId: "s1" });
    expect(presenceOf({ ...state, focused: false })).toEqual({ subscriptionId: "sub1", sessionId: null });
    expect(presenceOf({ ...state, visible: false })).toEqual({ subscriptionId: "sub1", sessionId: null });
  });

  it("is said on focus, repeated while focused, said as null on blur, and no longer repeated", () => {
    const r = reporter();
    r.update();
    expect(said).toEqual([{ subscriptionId: "sub1", sessionId: "s1" }]);
    r.update();
    expect(said).toHaveLength(1);
    vi.advanceTimersByTime(PRESENCE_REFRESH_MS * 2);
    expect(said).toHaveLength(3);

    state = { ...state, focused: false };
    r.update();
    expect(said.at(-1)).toEqual({ subscriptionId: "sub1", sessionId: null });
    vi.advanceTimersByTime(PRESENCE_REFRESH_MS * 3);
    expect(said).toHaveLength(4);

    state = { ...state, focused: true, visible: false };
    r.update();
    expect(said).toHaveLength(4);
    state = { ...state, visible: true };
    r.update();
    expect(said.at(-1)).toEqual({ subscriptionId: "sub1", sessionId: "s1" });
  });

  it("is said again after a reconnect, and as null when the tab leaves the session", () => {
    const r = reporter();
    r.update();
    r.resend();
    expect(said).toHaveLength(2);
    r.stop();
    expect(said.at(-1)).toEqual({ subscriptionId: "sub1", sessionId: null });
    vi.advanceTimersByTime(PRESENCE_REFRESH_MS * 3);
    expect(said).toHaveLength(3);
  });

  it("a subscription made while on the session is said at once", () => {
    state = { ...state, subscriptionId: null };
    const r = reporter();
    r.update();
    state = { ...state, subscriptionId: "sub2" };
    r.update();
    expect(said).toEqual([
      { subscriptionId: null, sessionId: "s1" },
      { subscriptionId: "sub2", sessionId: "s1" },
    ]);
  });
});
