import { z } from "zod";

/**
 * Where a person answers from: a question's `closedBy` when a person settled it, a vote's surface.
 * Adding one: a member here, and the type check names every table that must say or route it.
 */
export const AnswerSurfaceSchema = z.enum(["socket", "terminal", "rest", "push", "cli", "text", "channel", "slack", "email"]);
export type AnswerSurface = z.infer<typeof AnswerSurfaceSchema>;

/** What settles a question without a person's answer: a rule, its timer, the run's end … */
export const SettlerSchema = z.enum(["rule", "timeout", "stop", "run_end", "worker_exit", "restart", "internal"]);
export type Settler = z.infer<typeof SettlerSchema>;

/** A settled question's `closedBy`: the surface a person answered from, or what settled it. */
export const ClosedBySchema = z.enum([...AnswerSurfaceSchema.options, ...SettlerSchema.options]);
export type ClosedBy = z.infer<typeof ClosedBySchema>;

/** A socket's surface: a browser tab, or the terminal client (which says so when it connects). */
export const SocketSurfaceSchema = AnswerSurfaceSchema.extract(["socket", "terminal"]);
export type SocketSurface = z.infer<typeof SocketSurfaceSchema>;

/** A REST answer's surface: REST, or a notification's button (which says so in a header). */
export const RestSurfaceSchema = AnswerSurfaceSchema.extract(["rest", "push"]);
export type RestSurface = z.infer<typeof RestSurfaceSchema>;

/** A stored `closedBy`: one of the table's, else (a value a later version wrote) "internal", which the outcome alone says. */
export const closedByOf = (stored: string | null): ClosedBy | null => (stored === null ? null : (ClosedBySchema.safeParse(stored).data ?? "internal"));

/** A stored vote's surface: one of the table's, else REST (the surface that names nothing more). */
export const answerSurfaceOf = (stored: string): AnswerSurface => AnswerSurfaceSchema.safeParse(stored).data ?? "rest";

/** How each is said after an outcome ("Allowed once, in a browser tab"); null when the outcome says it. */
export const CLOSED_BY_WORDS: Record<ClosedBy, string | null> = {
  socket: "in a browser tab",
  terminal: "in a terminal",
  rest: "over REST",
  push: "from a notification",
  cli: "from the CLI",
  text: "with a text command",
  channel: "from a text channel",
  slack: "in Slack",
  email: "from an email",
  rule: "by a rule",
  timeout: null,
  stop: "when the run was stopped",
  run_end: "when the run ended",
  worker_exit: "when its worker stopped",
  restart: "at a server restart",
  internal: null,
};
