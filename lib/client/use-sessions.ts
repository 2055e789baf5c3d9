import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Session } from "../protocol/entities";
import type { WireError } from "../protocol/errors";
import type { Ack } from "../protocol/socket";
import { requestJson } from "./api";
import { chatStarter } from "./start-chat";
import { removeSession, upsertSession } from "./session-list";
import { getSocket } from "./socket";

/**
 * The session list (mine and those shared with me), kept live by `session.updated`,
 * `session.deleted` and `session.left`; `createSession` opens the new chat, `renameSession` and
 * `deleteSession` change one (every tab of its people follows).
 */
export function useSessions() {
  const router = useRouter();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [error, setError] = useState<WireError | null>(null);
  const [creating, setCreating] = useState(false);
  /** Sessions deleted while this page is open (here or in another tab): a chat showing one says so. */
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(() => new Set());
  const gone = useRef(new Set<string>());
  /** Sessions no longer shared with me while this page is open: a chat showing one says so, until it is shared again. */
  const [left, setLeft] = useState<ReadonlySet<string>>(() => new Set());

  const forget = useCallback((id: string) => {
    gone.current.add(id);
    setDeleted(new Set(gone.current));
    setSessions((list) => (list ? removeSession(list, id) : list));
  }, []);

  useEffect(() => {
    const socket = getSocket();
    let active = true;
    // Refetch on every (re)connect: updates missed while offline are not replayed.
    const load = async () => {
      const res = await requestJson<Session[]>("/api/sessions");
      if (!active) return;
      if (res.ok) {
        setSessions(res.data.filter((s) => !gone.current.has(s.id)));
        setError(null);
      } else setError(res.error);
    };
    const onUpdated = (session: Session) => {
      if (gone.current.has(session.id)) return;
      setSessions((list) => upsertSession(list ?? [], session));
      // Shared with me again.
      setLeft((ids) => (ids.has(session.id) ? withoutId(ids, session.id) : ids));
    };
    const onDeleted = ({ id }: { id: string }) => forget(id);
    const onLeft = ({ id }: { id: string }) => {
      setLeft((ids) => new Set(ids).add(id));
      setSessions((list) => (list ? removeSession(list, id) : list));
    };
    socket.on("session.updated", onUpdated);
    socket.on("session.deleted", onDeleted);
    socket.on("session.left", onLeft);
    socket.on("connect", load);
    void load();
    return () => {
      active = false;
      socket.off("session.updated", onUpdated);
      socket.off("session.deleted", onDeleted);
      socket.off("session.left", onLeft);
      socket.off("connect", load);
    };
  }, [forget]);

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

  /** The home page's first message: the chat is made, the message sent, then the chat opened. */
  const starter = useMemo(() => chatStarter(requestJson, (made) => setSessions((list) => upsertSession(list ?? [], made))), []);
  const startChat = useCallback(
    async (text: string): Promise<Ack<unknown>> => {
      const res = await starter(text);
      if (res.ok) router.push(`/s/${res.data.id}`);
      return res;
    },
    [router, starter],
  );

  /** A person's title for a chat; the answer's error says what was wrong (empty, too long). */
  const renameSession = useCallback(async (id: string, title: string): Promise<Ack<Session>> => {
    const res = await requestJson<Session>(`/api/sessions/${encodeURIComponent(id)}`, { method: "PATCH", body: { title } });
    if (res.ok) setSessions((list) => upsertSession(list ?? [], res.data));
    return res;
  }, []);

  /** Deletes a chat (its runs stop, its questions are withdrawn); a tab showing it goes back to the chat list. */
  const deleteSession = useCallback(
    async (id: string): Promise<Ack<unknown>> => {
      const res = await requestJson<unknown>(`/api/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });
      // Already gone (another tab deleted it first) is what was asked for.
      if (res.ok || res.error.code === "not_found:session") {
        forget(id);
        if (window.location.pathname === `/s/${id}`) router.replace("/");
        return { ok: true, data: null };
      }
      return res;
    },
    [forget, router],
  );

  return { sessions, error, creating, deleted, left, createSession, startChat, renameSession, deleteSession };
}

const withoutId = (ids: ReadonlySet<string>, id: string): ReadonlySet<string> => new Set([...ids].filter((other) => other !== id));

export type SessionsList = ReturnType<typeof useSessions>;
