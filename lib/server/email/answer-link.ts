import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * An email's answer link: a capability for one question and one person (the mail's row names
 * both), signed with a key of the server's so that no one can make one up or change the row it
 * names. The row and the question decide the rest: a link stops working when the question is
 * settled or the person is removed.
 */
const PURPOSE = "parley-answer-link:";

const signature = (key: string, messageId: string) => createHmac("sha256", key).update(`${PURPOSE}${messageId}`).digest("base64url");

/** The link's last path segment for a mail. */
export const answerLinkToken = (key: string, messageId: string): string => `${messageId}.${signature(key, messageId)}`;

/** The mail a token names, or null for one this server did not sign. */
export function readAnswerLinkToken(key: string, token: string): string | null {
  const dot = token.lastIndexOf(".");
  if (dot <= 0 || token.length > 200) return null;
  const messageId = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(signature(key, messageId));
  return given.length === expected.length && timingSafeEqual(given, expected) ? messageId : null;
}

/** The path of an answer page. */
export const answerPagePath = (token: string) => `/answer/${encodeURIComponent(token)}`;
