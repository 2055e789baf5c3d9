import type { Question } from "./question";
import { questionTag } from "./push";
import { approvalBoundText } from "./command-bound";

/**
 * What a notification of a waiting question says (a tab's desktop notification and a push alike),
 * and who asks, as a person reads it.
 */

/**
 * A function's (or model's) name as a person reads it: "order-coffee" → "Order coffee", "writeReport" →
 * "Write report". A name with spaces was written for people (an outside asker's "deploy script (CI)"): as given.
 */
export function ownerLabel(owner: string): string {
  if (/\s/.test(owner.trim())) return owner.trim();
  const words = owner
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .split(/[\s\-_./:]+/)
    .filter(Boolean);
  if (words.length === 0) return owner;
  const text = words.map((w) => (/^[A-Z0-9]+$/.test(w) && w.length > 1 ? w : w.toLowerCase())).join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** "Coffee helper wants to run shell". */
export function approvalTitle(owner: string, tool: string): string {
  return `${ownerLabel(owner)} wants to run ${tool}`;
}

/** The title, body and tag of a waiting question's notification: who asks, the question and the chat's title. */
export function notificationFor(q: Pick<Question, "id" | "owner" | "prompt" | "approval">, chatTitle: string | null): { title: string; body: string; tag: string } {
  const title = q.approval ? approvalTitle(q.owner, q.approval.tool) : `${ownerLabel(q.owner)} asks`;
  const prompt = [q.prompt, approvalBoundText(q.approval)].filter(Boolean).join("\n");
  return { title, body: chatTitle ? `${prompt}\n— ${chatTitle}` : prompt, tag: questionTag(q.id) };
}

/** The anchor of a question's card on its session's page. */
export const questionAnchor = (questionId: string) => `question-${questionId}`;

/** The question a page's `#anchor` (location.hash) names, if it is a question's card. */
export function questionOfAnchor(hash: string): string | null {
  const prefix = `#${questionAnchor("")}`;
  return hash.startsWith(prefix) && hash.length > prefix.length ? hash.slice(prefix.length) : null;
}

/** Where a notification of a question leads: its session, on its card. */
export const questionLink = (q: Pick<Question, "id" | "sessionId">) => `/s/${encodeURIComponent(q.sessionId)}#${questionAnchor(q.id)}`;
