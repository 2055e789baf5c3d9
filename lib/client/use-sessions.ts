import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import type { Session } from "../protocol/entities";
import type { WireError } from "../protocol/errors";
import { requestJson } from "./api";
import { upsertSession } from "./session-list";
import { getSocket } from "./socket";

/** The session list, kept live by `session.updated`; `createSession` opens the new chat. */
export function useSessions() {
  const router = useRouter();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  const [creating, setCreating] = useState(false);

  useEffect(() => {
    const socket = getSocket();
    let active = true;
    // Refetch on every (re)connect: updates missed while offline are not replayed.
    const load = async () => {
      const res = await requestJson<Session[]>("/api/sessions");
      if (!active) return;
      if (res.ok) {
        setSessions(res.data);
        setError(null);
      } else setError(res.error);
    };
    const onUpdated = (session: Session) => setSessions((list) => upsertSession(list ?? [], session));
    socket.on("session.updated", onUpdated);
    socket.on("connect", load);
    void load();
    return () => {
      active = false;
      socket.off("session.updated", onUpdated);
      socket.off("connect", load);
    };
  }, []);

  const createSession = useCallback(async () => {
    setCreating(true);
    const res = await requestJson<Session>("/api/sessions", { method: "POST", body: {} });
    if (res.ok) {
      setSessions((list) => upsertSession(list ?? [], res.data));
      router.push(`/s/${res.data.id}`);
    } else {
      setError(res.error);
    }
    setCreating(false);
    return res;
  }, [router]);

  return { sessions, error, creating, createSession };
}
