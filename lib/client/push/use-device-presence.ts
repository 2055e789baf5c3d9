import { useEffect } from "react";
import { getSocket } from "../socket";
import { createPresenceReporter } from "./presence";
import { useThisDevice } from "./this-device-state";

/** While this tab shows `sessionId`, visible and focused, the server hears so (and sends this device no push for it). */
export function useDevicePresence(sessionId: string): void {
  const subscriptionId = useThisDevice()?.id ?? null;

  useEffect(() => {
    const socket = getSocket();
    const reporter = createPresenceReporter({
      read: () => ({ sessionId, subscriptionId, visible: document.visibilityState === "visible", focused: document.hasFocus() }),
      // Not buffered while disconnected: a reconnect says the presence of then.
      emit: (p) => {
        if (socket.connected) socket.emit("device.presence", p);
      },
      timers: { setInterval: (fn, ms) => window.setInterval(fn, ms), clearInterval: (h) => window.clearInterval(h as number) },
    });
    const update = () => reporter.update();
    const resend = () => reporter.resend();
    window.addEventListener("focus", update);
    window.addEventListener("blur", update);
    document.addEventListener("visibilitychange", update);
    socket.on("connect", resend);
    reporter.update();
    return () => {
      window.removeEventListener("focus", update);
      window.removeEventListener("blur", update);
      document.removeEventListener("visibilitychange", update);
      socket.off("connect", resend);
      reporter.stop();
    };
  }, [sessionId, subscriptionId]);
}
