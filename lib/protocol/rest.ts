import { z } from "zod";
import { RunPolicySchema } from "./policy";
import { CommandIdSchema, MAX_ANSWER_CHARS } from "./question";

/** Above the largest reply a policy allows (1 MiB), so replies meet their own typed limit first. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MAX_MESSAGE_CHARS = 20_000;

export const CreateSessionBodySchema = z.object({ title: z.string().trim().min(1).max(200).optional() }).strict();
export const PostMessageBodySchema = z.object({
  text: z.string().trim().min(1, "A message needs text").max(MAX_MESSAGE_CHARS),
});
export const StartRunBodySchema = z.object({
  function: z.string().min(1),
  input: z.unknown().optional(),
  policy: RunPolicySchema.partial().optional(),
  commandId: CommandIdSchema.optional(),
});
export const ReplyBodySchema = z.object({
  value: z.unknown().refine((v) => v !== undefined, "value is required"),
  commandId: CommandIdSchema.optional(),
  digest: z.string().min(1).optional(),
});
export const RejectBodySchema = z.object({
  message: z.string().max(MAX_ANSWER_CHARS).optional(),
  commandId: CommandIdSchema.optional(),
  digest: z.string().min(1).optional(),
});
export const QuestionsQuerySchema = z.object({ session_id: z.string().min(1, "session_id is required") });
