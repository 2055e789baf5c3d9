import { z } from "zod";

// Command bodies (reply, reject, start run, resume, stop) are declared in ./commands.

/**
 * What a REST client says it is: `cli`, or `push` (a notification's button, answering through the
 * service worker). Any client can send it, so it never decides anything: a run's starter line
 * shows it as the client's own word, and an answer sent with `push` is recorded as given "from a
 * notification" (closedBy `push`) instead of "over REST", with the same credential checks.
 */
export const SURFACE_HEADER = "x-parley-surface";
/** The values SURFACE_HEADER may take; anything else (or none) says nothing. */
export const ClientSurfaceSchema = z.enum(["cli", "push"]);

/** Above the largest reply a policy allows (1 MiB), so replies meet their own typed limit first. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;
export const MAX_MESSAGE_CHARS = 20_000;

export const CreateSessionBodySchema = z.object({ title: z.string().trim().min(1).max(200).optional() }).strict();
/** `PATCH /api/sessions/{id}`: a person's title for the chat, one line. */
export const RenameSessionBodySchema = z.strictObject({
  title: z
    .string()
    .trim()
    .min(1, "A title needs text")
    .max(200, "A title is at most 200 characters")
    .refine((t) => !/[\r\n\u2028\u2029]/.test(t), "A title is one line"),
});
export type RenameSessionBody = z.infer<typeof RenameSessionBodySchema>;
/** `DELETE /api/sessions/{id}` takes no body, or `{}`: anything else is refused before anything is deleted. */
export const DeleteSessionBodySchema = z.strictObject({});
/** `DELETE /api/sessions/{id}/rules/{ruleId}` takes no body, or `{}`: anything else is refused before the rule is removed. */
export const RemoveRuleBodySchema = z.strictObject({});
/** `DELETE /api/auth/session` (sign out) takes no body, or `{}`. */
export const SignOutBodySchema = z.strictObject({});
export const PostMessageBodySchema = z.strictObject({
  text: z.string().trim().min(1, "A message needs text").max(MAX_MESSAGE_CHARS),
});
/** `GET /api/questions`: a session's pending questions, or one question (any state) by its run and pending id. */
export const QuestionsQuerySchema = z
  .object({ session_id: z.string().min(1).max(200).optional(), run_id: z.string().min(1).max(200).optional(), pending_id: z.string().min(1).max(200).optional() })
  .refine((q) => q.session_id !== undefined || (q.run_id !== undefined && q.pending_id !== undefined), "session_id (or run_id and pending_id) is required");

/**
 * `<database>.server.json`, written beside the SQLite file by a listening server and removed at
 * shutdown: how the CLI finds the server that owns its database, to send commands through it.
 */
export const ServerAnnouncementSchema = z.object({
  url: z.url(),
  pid: z.number().int().positive(),
  startedAt: z.string(),
  /** The server token, for the CLI on this machine (the file is readable by its owner only, like the database). */
  token: z.string().optional(),
});
export type ServerAnnouncement = z.infer<typeof ServerAnnouncementSchema>;
