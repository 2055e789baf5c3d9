import type { Session } from "../protocol/entities";
import type { Ack } from "../protocol/socket";
import type { RequestJson } from "./api";

/**
 * The first page's message: a new chat, then the message sent in it. A chat made whose message was
 * refused is reused by the next try, so a retry makes no second chat; one deleted meanwhile is not.
 */
export function chatStarter(request: RequestJson, onCreated: (session: Session) => void = () => {}) {
  let unsent: Session | null = null;
  return async function startChat(text: string): Promise<Ack<Session>> {
    let session = unsent;
    if (!session) {
      const made = await request<Session>("/api/sessions", { method: "POST", body: {} });
      if (!made.ok) return made;
      session = unsent = made.data;
      onCreated(made.data);
    }
    const sent = await request<unknown>(`/api/sessions/${encodeURIComponent(session.id)}/messages`, { method: "POST", body: { text } });
    if (!sent.ok) {
      if (sent.error.code === "not_found:session") unsent = null;
      return sent;
    }
    unsent = null;
    return { ok: true, data: session };
  };
}
