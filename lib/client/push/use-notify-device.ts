import { useCallback, useEffect, useRef, useState } from "react";
import type { WireError } from "../../protocol/errors";
import type { PushDevices } from "../../protocol/push";
import { requestJson } from "../api";
import { guessDeviceName } from "./device-name";
import { browserTraits, pushSupport, type PushSupport } from "./push-support";
import { PUSH_SUBSCRIPTIONS_PATH, sessionPushPath } from "./subscription-body";
import { removeDevice, subscribeThisDevice } from "./this-device";
import { browserPushDeps, refreshThisDevice, setThisDevice, useThisDevice } from "./this-device-state";

export type Permission = NotificationPermission | "unsupported";

/**
 * The "Notify this device" panel's state while it is open (mounted): whether this browser can get
 * pushes, its permission and subscription, the person's devices and muted chats, and the actions.
 */
export function useNotifyDevice(sessionId: string | null) {
  const device = useThisDevice();
  const [support, setSupport] = useState<PushSupport | null>(null);
  const [permission, setPermission] = useState<Permission>("unsupported");
  const [name, setName] = useState("");
  const [list, setList] = useState<PushDevices | null>(null);
  const [listError, setListError] = useState<WireError | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState<"subscribing" | "muting" | null>(null);
  const [removing, setRemoving] = useState<ReadonlySet<string>>(new Set());
  const latest = useRef(0);

  const load = useCallback(async () => {
    const mine = ++latest.current;
    const res = await requestJson<PushDevices>(PUSH_SUBSCRIPTIONS_PATH);
    if (mine !== latest.current) return;
    if (res.ok) {
      setList(res.data);
      setListError(null);
    } else setListError(res.error);
  }, []);

  useEffect(() => {
    const traits = browserTraits();
    setSupport(pushSupport(traits));
    setPermission("Notification" in window ? Notification.permission : "unsupported");
    setName((n) => n || guessDeviceName(traits.userAgent, traits.maxTouchPoints));
    setError(null);
    void refreshThisDevice();
    void load();
  }, [load]);

  const subscribe = useCallback(async () => {
    setBusy("subscribing");
    setError(null);
    const res = await subscribeThisDevice(browserPushDeps(), name);
    setPermission("Notification" in window ? Notification.permission : "unsupported");
    setBusy(null);
    if (!res.ok) {
      if (res.reason !== "denied") setError(res.message);
      return;
    }
    setThisDevice(res.device);
    await load();
  }, [name, load]);

  const remove = useCallback(
    async (id: string) => {
      setRemoving((s) => new Set(s).add(id));
      setError(null);
      const res = await removeDevice(browserPushDeps(), id);
      setRemoving((s) => {
        const next = new Set(s);
        next.delete(id);
        return next;
      });
      if (!res.ok) setError(res.error.message);
      await refreshThisDevice();
      await load();
    },
    [load],
  );

  const muted = sessionId !== null && (list?.mutedSessions.includes(sessionId) ?? false);
  const setMuted = useCallback(
    async (next: boolean) => {
      if (sessionId === null) return;
      setBusy("muting");
      setError(null);
      const res = await requestJson<unknown>(sessionPushPath(sessionId), { method: "PUT", body: { muted: next } });
      setBusy(null);
      if (!res.ok) setError(res.error.message);
      await load();
    },
    [sessionId, load],
  );

  return { support, permission, device, name, setName, list, listError, error, busy, removing, muted, subscribe, remove, setMuted, reload: load };
}
