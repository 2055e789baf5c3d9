import { createHash } from "node:crypto";
import { clip } from "../../protocol/bounded-text";
import { pushButtonsFor, questionTag, type PushPayload } from "../../protocol/push";
import type { Question } from "../../protocol/question";
import { notificationFor, questionLink } from "../../protocol/question-notification";

/**
 * The most bytes of JSON a push carries. Push services take 4,096 bytes of encrypted record;
 * aes128gcm's header, padding delimiter and tag leave 3,993 of plaintext (web-push refuses more).
 */
export const MAX_PUSH_PAYLOAD_BYTES = 3_900;
const MAX_TITLE_CHARS = 120;

const bytes = (payload: PushPayload) => Buffer.byteLength(JSON.stringify(payload));

/** The longest clip of `text` (in characters) for which `fits` holds; null when not even one character does. */
function longestFitting(text: string, fits: (clipped: string) => boolean): string | null {
  if (fits(text)) return text;
  let [low, high] = [0, text.length - 1];
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(clip(text, mid))) low = mid;
    else high = mid - 1;
  }
  return low > 0 && fits(clip(text, low)) ? clip(text, low) : null;
}

/** A push's body as JSON within MAX_PUSH_PAYLOAD_BYTES: the body is clipped first, then the buttons go (the card still answers), then the title is clipped. */
export function fitPayload(payload: PushPayload, maxBytes = MAX_PUSH_PAYLOAD_BYTES): string {
  if (payload.type !== "question") return JSON.stringify(payload);
  const fits = (p: PushPayload) => bytes(p) <= maxBytes;
  let fitted = { ...payload, title: clip(payload.title, MAX_TITLE_CHARS) };
  let body = longestFitting(fitted.body, (b) => fits({ ...fitted, body: b }));
  if (body === null) {
    fitted = { ...fitted, buttons: [] };
    body = longestFitting(fitted.body, (b) => fits({ ...fitted, body: b }));
  }
  if (body === null) {
    const short = { ...fitted, body: clip(fitted.body, 1) };
    const title = longestFitting(fitted.title, (t) => fits({ ...short, title: t }));
    if (title === null) throw new Error(`A push for question ${payload.questionId} does not fit in ${maxBytes} bytes`);
    return JSON.stringify({ ...short, title });
  }
  return JSON.stringify({ ...fitted, body });
}

/** The push of a waiting question: who asks, the question and the chat, where tapping goes, and the answer buttons it offers. */
export function questionPayload(q: Question, chatTitle: string | null): Extract<PushPayload, { type: "question" }> {
  const { title, body, tag } = notificationFor(q, chatTitle);
  return { type: "question", questionId: q.id, sessionId: q.sessionId, title, body, tag, url: questionLink(q), digest: q.targetDigest, buttons: pushButtonsFor(q) };
}

/** The push that closes a settled question's notification. */
export const closedPayload = (questionId: string): PushPayload => ({ type: "closed", questionId, tag: questionTag(questionId) });

/** The Topic of a question's pushes (at most 32 base64url characters): a push service holding one undelivered replaces it with the next, so a retraction replaces the question. */
export const pushTopic = (questionId: string) => createHash("sha256").update(questionId).digest("base64url").slice(0, 32);
