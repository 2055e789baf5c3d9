import type { Message, StreamingReply } from "../../protocol/entities";
import { MAX_SAY_CHARS } from "../../protocol/ipc";

/**
 * The agent replies still streaming, in memory: per session, each open reply (its run and journal
 * position) with the text so far, so a tab that joins mid-stream gets it in its snapshot and then
 * the rest as `message.delta`. Not durable: the stored message (`run.say`) is what lasts; a reply
 * is dropped when that is stored or when its run ends.
 */
export function createReplyStreams() {
  /** sessionId → `${runId}:${seq}` → the reply so far (insertion order = the order replies began). */
  const bySession = new Map<string, Map<string, StreamingReply>>();
  /** runId → its session, to drop a run's replies when it ends. */
  const sessionOfRun = new Map<string, string>();
  const keyOf = (runId: string, seq: number) => `${runId}:${seq}`;

  return {
    /** Adds a piece to a reply (opening it): the length of the text before it, or null when the reply is already at its longest and the piece is dropped. */
    append({ sessionId, runId, seq, delta }: { sessionId: string; runId: string; seq: number; delta: string }): number | null {
      let replies = bySession.get(sessionId);
      if (!replies) bySession.set(sessionId, (replies = new Map<string, StreamingReply>()));
      sessionOfRun.set(runId, sessionId);
      const key = keyOf(runId, seq);
      const reply = replies.get(key) ?? { runId, seq, text: "" };
      if (reply.text.length + delta.length > MAX_SAY_CHARS) return null;
      replies.set(key, { ...reply, text: reply.text + delta });
      return reply.text.length;
    },

    /** The replies of a session still streaming, oldest first. */
    of(sessionId: string): StreamingReply[] {
      return [...(bySession.get(sessionId)?.values() ?? [])];
    },

    /** The reply's text so far, or null when it is not open. */
    textOf(sessionId: string, runId: string, seq: number): string | null {
      return bySession.get(sessionId)?.get(keyOf(runId, seq))?.text ?? null;
    },

    /** Drops one reply (its message was stored). */
    drop(sessionId: string, runId: string, seq: number): void {
      const replies = bySession.get(sessionId);
      if (!replies) return;
      replies.delete(keyOf(runId, seq));
      if (replies.size === 0) bySession.delete(sessionId);
      if (![...replies.values()].some((r) => r.runId === runId)) sessionOfRun.delete(runId);
    },

    /** Drops every reply of a run (it ended or was parked); returns what was dropped. */
    dropRun(runId: string): StreamingReply[] {
      const sessionId = sessionOfRun.get(runId);
      if (sessionId === undefined) return [];
      sessionOfRun.delete(runId);
      const replies = bySession.get(sessionId);
      if (!replies) return [];
      const dropped = [...replies.values()].filter((r) => r.runId === runId);
      for (const r of dropped) replies.delete(keyOf(r.runId, r.seq));
      if (replies.size === 0) bySession.delete(sessionId);
      return dropped;
    },

    /** How many replies are open (for tests and leak checks). */
    size(): number {
      let n = 0;
      for (const replies of bySession.values()) n += replies.size;
      return n;
    },
  };
}

export type ReplyStreams = ReturnType<typeof createReplyStreams>;

/**
 * This node's open replies with those other nodes stream in the same session: one per run and
 * position (the longest text), none whose message is stored already (`messages`, read before).
 */
export function mergeStreams(local: StreamingReply[], remote: StreamingReply[], messages: Pick<Message, "runId" | "role" | "text">[]): StreamingReply[] {
  if (remote.length === 0) return local;
  const byKey = new Map(local.map((r) => [`${r.runId}:${r.seq}`, r]));
  for (const r of remote) {
    const key = `${r.runId}:${r.seq}`;
    const known = byKey.get(key);
    if (known && known.text.length >= r.text.length) continue;
    if (messages.some((m) => m.role === "agent" && m.runId === r.runId && m.text.startsWith(r.text))) continue;
    byKey.set(key, r);
  }
  return [...byKey.values()];
}
