import { useEffect, useRef } from "react";
import type { Question } from "../protocol/question";
import { thisDevice } from "./push/this-device-state";
import { notificationFor } from "../protocol/question-notification";
import { questionsToNotify } from "./questions-to-notify";

const supported = () => typeof window !== "undefined" && "Notification" in window;

/**
 * A question arriving while this tab is hidden shows one desktop notification, when the person
 * allowed them; a click brings the tab forward with the card focused. A question that arrived
 * while the tab was visible never notifies later, and a notification goes once its question closes.
 * A browser subscribed to pushes gets the push instead (with answer buttons; same tag), not both.
 * A question for other people notifies only once it becomes `me`'s to answer (an escalation named them).
 */
export function useQuestionNotifications(pending: Question[], chatTitle: string | null, focusCard: () => void, me: string | null): void {
  const seen = useRef<ReadonlySet<string>>(new Set());
  const shown = useRef(new Map<string, Notification>());

  useEffect(() => {
    const open = new Set(pending.map((q) => q.id));
    for (const [id, n] of shown.current) {
      if (!open.has(id)) {
        n.close();
        shown.current.delete(id);
      }
    }
    const { fresh, seen: now } = questionsToNotify(pending, me, seen.current);
    seen.current = now;
    for (const q of fresh) {
      if (!supported() || document.visibilityState !== "hidden" || Notification.permission !== "granted" || thisDevice() !== null) continue;
      const { title, body, tag } = notificationFor(q, chatTitle);
      try {
        const n = new Notification(title, { body, tag });
        n.onclick = () => {
          window.focus();
          focusCard();
          n.close();
        };
        shown.current.set(q.id, n);
      } catch {
        // Some browsers allow notifications only from a service worker: the tab title still says it.
      }
    }
  }, [pending, chatTitle, focusCard, me]);

  useEffect(() => {
    const notifications = shown.current;
    return () => notifications.forEach((n) => n.close());
  }, []);
}
