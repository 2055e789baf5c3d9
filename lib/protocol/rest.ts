import { z } from "zod";
import { AnswerValueSchema, MAX_ANSWER_CHARS } from "./question";

export const MAX_BODY_BYTES = 256 * 1024;
export const MAX_MESSAGE_CHARS = 20_000;

export const CreateSessionBodySchema = z.object({ title: z.string().trim().min(1).max(200).optional() }).strict();
export const PostMessageBodySchema = z.object({ text: z.string().trim().min(1, "A message needs text").max(MAX_MESSAGE_CHARS) });
export const StartRunBodySchema = z.object({
  function: z.string().min(1),
  input: z.unknown().optional(),
});
export const ReplyBodySchema = z.object({ value: AnswerValueSchema });
export const RejectBodySchema = z.object({ message: z.string().max(MAX_ANSWER_CHARS).optional() });
export const QuestionsQuerySchema = z.object({ session_id: z.string().min(1, "session_id is required") });
