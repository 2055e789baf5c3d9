import { z } from "zod";
import { QuestionSchema } from "./question";

export const SessionSchema = z.object({
  id: z.string(),
  title: z.string(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** How many questions of this session wait for an answer. */
  pendingCount: z.number().int().nonnegative(),
});
export type Session = z.infer<typeof SessionSchema>;

export const MessageRoleSchema = z.enum(["user", "agent", "system"]);
export type MessageRole = z.infer<typeof MessageRoleSchema>;

export const MessageSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  runId: z.string().nullable(),
  role: MessageRoleSchema,
  text: z.string(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof MessageSchema>;

export const RunStatusSchema = z.enum(["running", "waiting_input", "succeeded", "failed", "cancelled"]);
export type RunStatus = z.infer<typeof RunStatusSchema>;
export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ["running", "waiting_input"];

export const RunSchema = z.object({
  id: z.string(),
  sessionId: z.string(),
  functionName: z.string(),
  input: z.unknown(),
  status: RunStatusSchema,
  result: z.unknown().nullable(),
  error: z.string().nullable(),
  progress: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type Run = z.infer<typeof RunSchema>;

/** What `session.join` and `GET /api/sessions/{id}` return: everything needed to draw a session. */
export const SessionSnapshotSchema = z.object({
  session: SessionSchema,
  messages: z.array(MessageSchema),
  runs: z.array(RunSchema),
  pendingQuestions: z.array(QuestionSchema),
});
export type SessionSnapshot = z.infer<typeof SessionSnapshotSchema>;

export const AgentFunctionInfoSchema = z.object({
  name: z.string(),
  description: z.string(),
});
export type AgentFunctionInfo = z.infer<typeof AgentFunctionInfoSchema>;
