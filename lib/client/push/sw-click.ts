import { z } from "zod";
import { PushButtonSchema } from "../../protocol/push";
import { noticeFor, sendAnswer } from "./sw-answer";
import type { NotificationData, ShownNotification, SwEnv } from "./sw-env";
import { NOTIFICATION_ICON } from "./sw-push";

const NotificationDataSchema = z.object({
  questionId: z.string(),
  sessionId: z.string(),
  url: z.string(),
  digest: z.string(),
  buttons: z.array(PushButtonSchema),
});

export interface ClickedNotification extends ShownNotification {
  body?: string;
}

/**
 * A tap on a notification. A button answers from here, without opening the app, and the
 * notification closes, or says why the answer did not count (a notice of the same tag, whose tap
 * opens the question). A tap on the notification itself opens the session on its card.
 */
export async function handleNotificationClick(env: SwEnv, { action, notification }: { action: string; notification: ClickedNotification }): Promise<void> {
  const parsed = NotificationDataSchema.safeParse(notification.data);
  if (!parsed.success) {
    notification.close();
    return openApp(env, "/");
  }
  const data: NotificationData = parsed.data;
  const button = action ? data.buttons.find((b) => b.action === action) : undefined;
  if (!button) {
    notification.close();
    return openApp(env, data.url);
  }
  const notice = noticeFor(await sendAnswer(env, data, button));
  if (!notice) {
    notification.close();
    return;
  }
  await env.registration.showNotification(notice.title, {
    body: notice.body,
    tag: notification.tag,
    // No buttons: a tap on the notice opens the question.
    data: { ...data, buttons: [] },
    requireInteraction: false,
    renotify: false,
    icon: NOTIFICATION_ICON,
    badge: NOTIFICATION_ICON,
  });
}

/** Focuses a window already on that page (on the link's card: its anchor, no reload), or opens one. */
export async function openApp(env: SwEnv, url: string): Promise<void> {
  const target = new URL(url, env.origin);
  const windows = await env.clients.matchAll({ type: "window", includeUncontrolled: true });
  const same = windows.find((w) => {
    const u = new URL(w.url);
    return u.origin === target.origin && u.pathname === target.pathname;
  });
  if (same) {
    await same.focus();
    // A window this worker does not control refuses: it stays focused on its chat as it was.
    if (target.hash && same.url !== target.href) await same.navigate(target.href).catch(() => undefined);
    return;
  }
  await env.clients.openWindow(target.href);
}
