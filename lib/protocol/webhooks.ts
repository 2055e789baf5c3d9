import { z } from "zod";
import { QuestionSchema } from "./question";

/**
 * An ask's `callbackUrl`: where its settlement is POSTed, signed as Standard Webhooks specify
 * (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The host must be one the server's
 * PARLEY_WEBHOOK_HOSTS allows; the server checks that, not this schema.
 */
export const MAX_CALLBACK_URL_CHARS = 2_000;
export const CallbackUrlSchema = z
  .string()
  .trim()
  .max(MAX_CALLBACK_URL_CHARS, `a callbackUrl has at most ${MAX_CALLBACK_URL_CHARS} characters`)
  .pipe(z.url({ protocol: /^https?$/, error: "a callbackUrl must be an http(s) URL such as http://127.0.0.1:8080/parley" }))
  // A password in the URL would be stored with the question and shown to whoever reads it.
  .refine((url) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(url), "a callbackUrl may not carry a user or password (user:password@): sign the callback instead, as webhooks are");

/** The one event a callback receives. */
export const WEBHOOK_EVENT = "question.settled";

/** The body POSTed to a callbackUrl: the question as `GET /api/questions/{id}` returns it, once it settled. */
export const WebhookPayloadSchema = z.object({
  type: z.literal(WEBHOOK_EVENT),
  /** When the question settled (ISO 8601). */
  timestamp: z.iso.datetime(),
  data: z.object({ question: QuestionSchema }),
});
export type WebhookPayload = z.infer<typeof WebhookPayloadSchema>;

export const WebhookDeliveryStatusSchema = z.enum(["pending", "delivered", "failed"]);
export type WebhookDeliveryStatus = z.infer<typeof WebhookDeliveryStatusSchema>;

/** A delivery as the question's audit shows it: the callback's host only (its path and query may hold the receiver's secrets). */
export const WebhookDeliverySchema = z.object({
  /** The webhook-id header: the same at every attempt. */
  id: z.string(),
  /** The settled question it carries. */
  questionId: z.string(),
  host: z.string(),
  status: WebhookDeliveryStatusSchema,
  /** Attempts started so far. */
  attempts: z.number().int(),
  /** Why the last attempt failed (an HTTP status, a timeout, a refused connection). */
  lastError: z.string().nullable(),
  /** When the next attempt is due; null once delivered or failed. */
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
  createdAt: z.string(),
});
export type WebhookDelivery = z.infer<typeof WebhookDeliverySchema>;

/** `GET /api/questions/{id}`: the question, and its callback's deliveries (none without a callbackUrl, nor until its delivery is enqueued, right after it settles). */
export const QuestionReadSchema = QuestionSchema.extend({ deliveries: z.array(WebhookDeliverySchema) });
export type QuestionRead = z.infer<typeof QuestionReadSchema>;
