import { useCallback, useEffect, useRef, useState } from "react";
import type { Session } from "../protocol/entities";
import type { WireError } from "../protocol/errors";
import type { Ack } from "../protocol/socket";
import type { SessionMember, SessionMembers } from "../protocol/teams";
import { requestJson } from "./api";
import { membersPath } from "./session-people";
import { getSocket } from "./socket";

/**
 * A session's people for its People panel: fetched while `open` (on opening, on every
 * `session.updated` of the session, which a change of its members sends, and after a reconnect);
 * `add` shares it with a person, `remove` stops sharing it (leaving, for myself).
 */
export function useMembers(sessionId: string, open: boolean) {
  const [members, setMembers] = useState<SessionMember[] | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  /** The people whose Remove (or Leave) is on its way. */
  const [removing, setRemoving] = useState<ReadonlySet<string>>(new Set());
  /** Only the latest fetch may set the list: an older answer can arrive after a newer one. */
  const latest = useRef(0);

  const load = useCallback(async () => {
    const mine = ++latest.current;
    const res = await requestJson<SessionMembers>(membersPath(sessionId));
    if (mine !== latest.current) return;
    if (res.ok) {
      setMembers(res.data.members);
      setError(null);
    } else setError(res.error);
  }, [sessionId]);

  /** A command's answer is the list as it now is: newer than any fetch still on its way. */
  const took = useCallback((res: Ack<SessionMembers>) => {
    if (!res.ok) return;
    latest.current++;
    setMembers(res.data.members);
    setError(null);
  }, []);

  useEffect(() => {
    if (!open) return;
    const socket = getSocket();
    const onUpdated = (session: Session) => {
      if (session.id === sessionId) void load();
    };
    const onConnect = () => void load();
    socket.on("session.updated", onUpdated);
    socket.on("connect", onConnect);
    void load();
    return () => {
      socket.off("session.updated", onUpdated);
      socket.off("connect", onConnect);
      // An answer still on its way is for a panel that has closed.
      // eslint-disable-next-line react-hooks/exhaustive-deps -- `latest` counts fetches, it is no element: the bump must see its value now.
      latest.current++;
    };
  }, [open, sessionId, load]);

  // Another session's people are not these.
  useEffect(() => {
    setMembers(null);
    setError(null);
  }, [sessionId]);

  const add = useCallback(
    async (user: string): Promise<Ack<SessionMembers>> => {
      const res = await requestJson<SessionMembers>(membersPath(sessionId), { method: "POST", body: { user } });
      took(res);
      return res;
    },
    [sessionId, took],
  );

  const remove = useCallback(
    async (user: string): Promise<Ack<SessionMembers>> => {
      setRemoving((s) => new Set(s).add(user));
      const res = await requestJson<SessionMembers>(membersPath(sessionId, user), { method: "DELETE" });
      setRemoving((s) => {
        const next = new Set(s);
        next.delete(user);
        return next;
      });
      took(res);
      if (!res.ok) setError(res.error);
      return res;
    },
    [sessionId, took],
  );

  return { members, error, removing, add, remove, reload: load };
}
