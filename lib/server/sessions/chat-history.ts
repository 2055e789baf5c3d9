import type { Db } from "../store/db/client";
import { createMessageStore } from "../store/sessions/message-store";

/** How many earlier messages a chat turn gets as its context, and how many bytes of text in all. */
export const HISTORY_MESSAGES = 30;
export const HISTORY_BYTES = 24_000;
/** One message's share: a long one is cut (its start kept) so others still fit. */
const MESSAGE_CHARS = 4_000;

export interface HistoryEntry {
  role: "user" | "agent";
  text: string;
}

/**
 * The newest user and agent messages, oldest first, within HISTORY_MESSAGES and HISTORY_BYTES
 * (UTF-8): newer messages win the room; system messages are left out.
 */
export function boundHistory(newestFirst: ReadonlyArray<{ role: string; text: string }>, maxMessages = HISTORY_MESSAGES, maxBytes = HISTORY_BYTES): HistoryEntry[] {
  const kept: HistoryEntry[] = [];
  let bytes = 0;
  for (const m of newestFirst) {
    if (kept.length >= maxMessages) break;
    if (m.role !== "user" && m.role !== "agent") continue;
    const text = m.text.length > MESSAGE_CHARS ? `${m.text.slice(0, MESSAGE_CHARS - 1)}…` : m.text;
    const size = Buffer.byteLength(text, "utf8") + 16;
    if (bytes + size > maxBytes) break;
    bytes += size;
    kept.push({ role: m.role, text });
  }
  return kept.reverse();
}

/** The context of a new chat turn: the session's earlier messages, bounded. */
export async function loadChatHistory(db: Db, sessionId: string): Promise<HistoryEntry[]> {
  return boundHistory(await createMessageStore(db.exec).chatHistory(sessionId, HISTORY_MESSAGES));
}
