import { z } from "zod";
import type { Question } from "./question";

/**
 * Email: people's addresses, and the answer page a mailed question links to. The page is a plain
 * HTML form (it works without JavaScript); opening it never answers (mail scanners open links):
 * its POST does, with the fields below.
 */

export const EmailAddressSchema = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ error: "an email address is name@example.com" }));

/** `PUT /api/users/{name}/email`: a person's address (null: none; left out: kept), and whether questions they may answer are mailed to them (left out: kept, on for a new address). */
export const PersonEmailBodySchema = z.strictObject({ email: EmailAddressSchema.nullable().optional(), questions: z.boolean().optional() });
export type PersonEmailBody = z.infer<typeof PersonEmailBodySchema>;
export const PersonEmailSchema = z.object({ person: z.string(), email: z.string().nullable(), questions: z.boolean() });
export type PersonEmail = z.infer<typeof PersonEmailSchema>;

/** The answer page's form fields: a choice's place (`choice`, repeated for several), a confirm's yes/no, an approval's once/always/reject, free text or a reason, a form's `field.<name>`. */
export const ANSWER_FORM = { choice: "choice", confirm: "confirm", approval: "approval", text: "text", feedback: "feedback", fieldPrefix: "field." } as const;

/** What the answer page shows for a link. */
export type AnswerPageView =
  | { state: "invalid" }
  | { state: "not_allowed"; reason: string }
  | { state: "settled"; question: Question; outcome: string }
  | { state: "waiting"; question: Question; person: string; chatTitle: string; cardUrl: string; error: string | null };

/** The answer API's path for a link's token. */
export const answerLinkApiPath = (token: string) => `/api/answer/${encodeURIComponent(token)}`;

/** A question's mail to a person, as its run's audit shows it (`GET /api/runs/{id}`'s `email`). */
export const EmailDeliverySchema = z.object({
  id: z.string(),
  questionId: z.string(),
  personId: z.string(),
  /** pending (not sent yet) | sent | failed (given up) | cancelled (settled before it went) */
  status: z.enum(["pending", "sent", "failed", "cancelled"]),
  attempts: z.number().int(),
  lastError: z.string().nullable(),
  sentAt: z.string().nullable(),
});
export type EmailDelivery = z.infer<typeof EmailDeliverySchema>;
