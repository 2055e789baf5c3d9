import { useCallback, useEffect, useRef, useState } from "react";
import type { WireError } from "../protocol/errors";
import type { SessionRules } from "../protocol/permissions";
import type { Ack } from "../protocol/socket";
import { requestJson } from "./api";
import { rulesPath, withoutRule } from "./permission-rules";
import { getSocket } from "./socket";

/**
 * A session's permission rules for its settings panel: fetched while `open` (on opening, on every
 * `rules.updated` of the session, after a reconnect), and `remove` for a session rule.
 */
export function usePermissionRules(sessionId: string, open: boolean) {
  const [rules, setRules] = useState<SessionRules | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  const [loading, setLoading] = useState(false);
  const [removing, setRemoving] = useState<ReadonlySet<string>>(new Set());
  /** Only the latest fetch may set the rules: an older answer can arrive after a newer one. */
  const latest = useRef(0);

  const load = useCallback(async () => {
    const mine = ++latest.current;
    setLoading(true);
    const res = await requestJson<SessionRules>(rulesPath(sessionId));
    if (mine !== latest.current) return;
    setLoading(false);
    if (res.ok) {
      setRules(res.data);
      setError(null);
    } else setError(res.error);
  }, [sessionId]);

  useEffect(() => {
    if (!open) return;
    const socket = getSocket();
    const onUpdated = (e: { sessionId: string }) => {
      if (e.sessionId === sessionId) void load();
    };
    // Updates missed while offline are not replayed: fetch again after a reconnect.
    const onConnect = () => void load();
    socket.on("rules.updated", onUpdated);
    socket.on("connect", onConnect);
    void load();
    return () => {
      socket.off("rules.updated", onUpdated);
      socket.off("connect", onConnect);
      // An answer still on its way is for a panel that has closed.
      // eslint-disable-next-line react-hooks/exhaustive-deps -- `latest` counts fetches, it is no element: the bump must see its value now.
      latest.current++;
      setLoading(false);
    };
  }, [open, sessionId, load]);

  // Another session's rules are not these.
  useEffect(() => {
    setRules(null);
    setError(null);
  }, [sessionId]);

  const remove = useCallback(
    async (ruleId: string): Promise<Ack<{ removed: true }>> => {
      setRemoving((s) => new Set(s).add(ruleId));
      const res = await requestJson<{ removed: true }>(rulesPath(sessionId, ruleId), { method: "DELETE" });
      setRemoving((s) => {
        const next = new Set(s);
        next.delete(ruleId);
        return next;
      });
      // Already gone (another tab removed it): the person's wish holds.
      if (res.ok || res.error.code === "not_found:rule") {
        setRules((r) => withoutRule(r, ruleId));
        setError(null);
      } else setError(res.error);
      return res;
    },
    [sessionId],
  );

  return { rules, error, loading, removing, remove, reload: load };
}
