import { useCallback, useEffect, useState } from "react";

/**
 * A chat's unsent message, kept per tab (sessionStorage: each tab its own, surviving a reload) so
 * that a card taking the input's place, a reload or a switch to another chat loses nothing.
 */

type DraftStorage = Pick<Storage, "getItem" | "setItem" | "removeItem">;

export const draftKey = (sessionId: string) => `parley:draft:${sessionId}`;

/** Storage can be missing or refuse (a private window, a full quota): a draft is then only in memory. */
function tabStorage(): DraftStorage | null {
  try {
    return typeof window === "undefined" ? null : window.sessionStorage;
  } catch {
    return null;
  }
}

export function readDraft(storage: DraftStorage | null, sessionId: string): string {
  try {
    return storage?.getItem(draftKey(sessionId)) ?? "";
  } catch {
    return "";
  }
}

export function writeDraft(storage: DraftStorage | null, sessionId: string, text: string): void {
  try {
    if (text.trim() === "") storage?.removeItem(draftKey(sessionId));
    else storage?.setItem(draftKey(sessionId), text);
  } catch {
    // Kept in memory only.
  }
}

let leaving = false;
if (typeof window !== "undefined") window.addEventListener("beforeunload", () => (leaving = true));

/**
 * Whether this page is being left (a reload, a navigation away). Its requests in flight are then
 * aborted and fail: a send failing so may well have reached the server, so its text is not put
 * back into the draft.
 */
export function pageIsLeaving(): boolean {
  return leaving;
}

/** The draft of a chat: restored when the input (re)appears, saved as it is typed, cleared once sent. */
export function useDraft(sessionId: string): [string, (text: string) => void] {
  const [text, setText] = useState("");
  useEffect(() => setText(readDraft(tabStorage(), sessionId)), [sessionId]);
  const update = useCallback(
    (next: string) => {
      setText(next);
      writeDraft(tabStorage(), sessionId, next);
    },
    [sessionId],
  );
  return [text, update];
}
