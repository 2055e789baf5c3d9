import { PRESENCE_REFRESH_MS, type DevicePresence } from "../../protocol/push";

/** What the tab knows when it says where it is. */
export interface PresenceState {
  sessionId: string | null;
  subscriptionId: string | null;
  visible: boolean;
  focused: boolean;
}

/** A tab is on a session only while it is visible and has focus: then that device gets no push for it. */
export const presenceOf = (s: PresenceState): DevicePresence => ({ subscriptionId: s.subscriptionId, sessionId: s.visible && s.focused ? s.sessionId : null });

export interface PresenceTimers {
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/**
 * Says this tab's presence when it changes, and again every PRESENCE_REFRESH_MS while it is on a
 * session (the server forgets a presence it has not heard for a while). `update` after focus,
 * blur or a visibility change; `resend` after a reconnect (the server forgot); `stop` on leaving.
 */
export function createPresenceReporter({ read, emit, timers }: { read: () => PresenceState; emit: (p: DevicePresence) => void; timers: PresenceTimers }) {
  let last: DevicePresence | null = null;
  let timer: unknown = null;

  const say = (p: DevicePresence) => {
    last = p;
    emit(p);
  };
  const refresh = () => {
    if (last?.sessionId) say(presenceOf(read()));
  };

  function update(): void {
    const now = presenceOf(read());
    if (last === null || now.sessionId !== last.sessionId || now.subscriptionId !== last.subscriptionId) say(now);
    if (now.sessionId && timer === null) timer = timers.setInterval(refresh, PRESENCE_REFRESH_MS);
    if (!now.sessionId && timer !== null) {
      timers.clearInterval(timer);
      timer = null;
    }
  }

  return {
    update,
    resend(): void {
      last = null;
      update();
    },
    stop(): void {
      if (timer !== null) timers.clearInterval(timer);
      timer = null;
      if (last?.sessionId) say({ subscriptionId: last.subscriptionId, sessionId: null });
      last = null;
    },
  };
}
