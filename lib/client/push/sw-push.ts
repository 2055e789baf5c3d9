import { PushPayloadSchema, type PushPayload } from "../../protocol/push";
import { rememberClosed, wasClosed } from "./sw-closed";
import type { NotificationData, ShowOptions, SwEnv } from "./sw-env";

export const NOTIFICATION_ICON = "/icons/icon-192.png";
export const TAP_TO_ANSWER = "Tap to answer.";

type QuestionPush = Extract<PushPayload, { type: "question" }>;

/** All the buttons or none: a platform that shows fewer than the question offers opens the card instead. */
export function questionNotification(p: QuestionPush, maxActions: number): { title: string; options: ShowOptions } {
  const fits = p.buttons.length > 0 && p.buttons.length <= maxActions;
  const data: NotificationData = { questionId: p.questionId, sessionId: p.sessionId, url: p.url, digest: p.digest, buttons: fits ? p.buttons : [] };
  return {
    title: p.title,
    options: {
      body: fits ? p.body : `${p.body}\n${TAP_TO_ANSWER}`,
      tag: p.tag,
      data,
      ...(fits && { actions: p.buttons.map((b) => ({ action: b.action, title: b.title })) }),
      // A question waits for its answer: it stays until answered here or retracted by a "closed" push.
      requireInteraction: true,
      renotify: false,
      icon: NOTIFICATION_ICON,
      badge: NOTIFICATION_ICON,
    },
  };
}

export async function closeTagged(env: SwEnv, tag: string): Promise<void> {
  for (const n of await env.registration.getNotifications({ tag })) n.close();
}

/** A push: a new question shows its notification (unless its retraction came first); a settled one's notification closes on this device too. */
export async function handlePush(env: SwEnv, data: unknown): Promise<void> {
  const parsed = PushPayloadSchema.safeParse(data);
  if (!parsed.success) return;
  const payload = parsed.data;
  if (payload.type === "closed") {
    await rememberClosed(env, payload.questionId);
    return closeTagged(env, payload.tag);
  }
  if (await wasClosed(env, payload.questionId)) return;
  const { title, options } = questionNotification(payload, env.maxActions());
  await env.registration.showNotification(title, options);
}

/** A push's body as JSON, or null (an empty or garbled push is ignored). */
export function pushJson(data: { json(): unknown } | null | undefined): unknown {
  try {
    return data ? data.json() : null;
  } catch {
    return null;
  }
}
