import { z } from "zod";
import { LOCAL_OWNER, OwnerIdSchema } from "./access";

/**
 * Teams: people, the sessions they share, who may answer a question, approvals that need several
 * people, escalation, and the audit that names who decided. A person's name is their id (the
 * `ownerId` of what they own); `local` is the administrator the server token speaks for.
 */
export const PersonNameSchema = OwnerIdSchema;
export type PersonName = z.infer<typeof PersonNameSchema>;

/** A name a person may be given: any person's name but the administrator's own. */
export const NewPersonNameSchema = PersonNameSchema.refine((name) => name !== LOCAL_OWNER, { message: `"${LOCAL_OWNER}" is the administrator's name` });

/** A person: `name` is their id (what everything keeps naming them by), `displayName` what people read (./display-names). */
export const PersonSchema = z.object({ name: PersonNameSchema, displayName: z.string(), admin: z.boolean(), createdAt: z.string() });
export type Person = z.infer<typeof PersonSchema>;

/** How long a sign-in link printed by `parley user add` may be used (once). */
export const SIGN_IN_LINK_TTL_MS = 24 * 3600_000;
/** The query parameter of a sign-in link (`/?signin=sil_<id>_<secret>`). */
export const SIGN_IN_LINK_PARAM = "signin";
export const SIGN_IN_LINK_PATTERN = /^sil_([A-Za-z0-9]{8,32})_([A-Za-z0-9_-]{20,100})$/;

/** `parley user add NAME [--admin]`, through the server (`POST /api/users`, administrators only). */
export const AddPersonBodySchema = z.strictObject({ name: NewPersonNameSchema, admin: z.boolean().default(false) });
export type AddPersonBody = z.infer<typeof AddPersonBodySchema>;
/** Its answer: the person, and the link that signs them in once (shown once). */
export const AddPersonResultSchema = z.object({ person: PersonSchema, signInLink: z.string(), expiresAt: z.string() });
export type AddPersonResult = z.infer<typeof AddPersonResultSchema>;

/** `GET /api/users` (administrators only): everyone but the administrator `local`, oldest first. */
export const PeopleSchema = z.object({ people: z.array(PersonSchema) });
export type People = z.infer<typeof PeopleSchema>;

/** `POST /api/users/{name}/link`: no parameters (an empty body or `{}`). */
export const NewSignInLinkBodySchema = z.strictObject({});
/** `POST /api/users/{name}/link` (`parley user link NAME`): a new one-time link, which replaces the person's unused ones (a lost link stops working). */
export const NewSignInLinkResultSchema = z.object({ name: PersonNameSchema, signInLink: z.string(), expiresAt: z.string() });
export type NewSignInLinkResult = z.infer<typeof NewSignInLinkResultSchema>;

/** `DELETE /api/users/{name}`: no parameters (an empty body or `{}`). */
export const RemovePersonBodySchema = z.strictObject({});
/** `DELETE /api/users/{name}`'s answer: who was removed, and the ids of the API tokens that were revoked with them. */
export const RemovePersonResultSchema = z.object({ person: PersonSchema, revokedTokens: z.array(z.string()) });
export type RemovePersonResult = z.infer<typeof RemovePersonResultSchema>;

/** The URL a sign-in link is handed out as: the server's origin, and the link in SIGN_IN_LINK_PARAM. */
export const signInLinkUrl = (origin: string, link: string): string => `${origin.replace(/\/+$/, "")}/?${SIGN_IN_LINK_PARAM}=${encodeURIComponent(link)}`;

/** A session's people: its owner and the members it is shared with. */
export const SessionMemberSchema = z.object({ user: PersonNameSchema, role: z.enum(["owner", "member"]), addedAt: z.string() });
export type SessionMember = z.infer<typeof SessionMemberSchema>;
export const SessionMembersSchema = z.object({ members: z.array(SessionMemberSchema) });
export type SessionMembers = z.infer<typeof SessionMembersSchema>;
/** `POST /api/sessions/{id}/members` (the owner or an administrator). */
export const AddMemberBodySchema = z.strictObject({ user: PersonNameSchema });
export type AddMemberBody = z.infer<typeof AddMemberBodySchema>;
/** `DELETE /api/sessions/{id}/members/{user}` (the owner or an administrator; a member for themselves: leaving) takes no body, or `{}`. */
export const RemoveMemberBodySchema = z.strictObject({});

export const MAX_ANSWERERS = 50;
export const MAX_ESCALATION_STEPS = 5;

/** Who may answer a question: people by name; absent (null) = any member of its session. */
export const AnswerersSchema = z
  .array(PersonNameSchema)
  .min(1, "name at least one person, or leave answerers out for any member")
  .max(MAX_ANSWERERS)
  .transform((names) => [...new Set(names)]);

/** "90s", "10m", "2h", "1d", or milliseconds as a number. */
export const DurationSchema = z.union([
  z.number().int().positive(),
  z
    .string()
    .trim()
    .regex(/^\d+(ms|s|m|h|d)$/, 'a duration such as "30s", "10m", "2h" or "1d"')
    .transform((text) => {
      const [, n, unit] = /^(\d+)(ms|s|m|h|d)$/.exec(text)!;
      return Number(n) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit as "ms" | "s" | "m" | "h" | "d"];
    }),
]);

/** An escalation step as asked (`{ after: "10m", to: ["bob"] }`): after that long with nobody allowed answering, `to` may answer too and is told. */
export const EscalationStepInputSchema = z.strictObject({ after: DurationSchema, to: z.array(PersonNameSchema).min(1).max(MAX_ANSWERERS) });
/** As stored and shown: `afterMs` counts from when the question was asked. */
export const EscalationStepSchema = z.object({ afterMs: z.number().int().positive(), to: z.array(PersonNameSchema) });
export type EscalationStep = z.infer<typeof EscalationStepSchema>;
/** Escalation as an asker gives it (the ask API, MCP, `rt.ask`): each step's `after` read as milliseconds, the shape kept, so it parses again the same. */
export const EscalationAskSchema = z
  .array(EscalationStepInputSchema)
  .min(1)
  .max(MAX_ESCALATION_STEPS)
  .refine((steps) => steps.every((s, i) => i === 0 || s.after > steps[i - 1]!.after), { message: "each step comes after the one before it" });
/** As a question stores it; a spec parsed once (the worker's, then the server's) parses again the same. */
export const EscalationSchema = z
  .array(z.union([EscalationStepInputSchema.transform((s) => ({ afterMs: s.after, to: s.to })), EscalationStepSchema.strict()]))
  .min(1)
  .max(MAX_ESCALATION_STEPS)
  .transform((steps): EscalationStep[] => steps.map((s) => ({ afterMs: s.afterMs, to: [...new Set(s.to)] })))
  .refine((steps) => steps.every((s, i) => i === 0 || s.afterMs > steps[i - 1]!.afterMs), { message: "each step comes after the one before it" });

/** An approval that needs several people: `required` distinct people of `from` (default: its answerers), rejected at `rejections` distinct rejections (default 1). */
export const ApprovalsInputSchema = z
  .strictObject({
    required: z.number().int().min(1).max(MAX_ANSWERERS),
    from: z.array(PersonNameSchema).min(1).max(MAX_ANSWERERS).optional(),
    rejections: z.number().int().min(1).max(MAX_ANSWERERS).default(1),
  })
  .refine((a) => a.from === undefined || new Set(a.from).size >= a.required, { message: "from names fewer people than required", path: ["from"] });
export const ApprovalsSchema = z.object({ required: z.number().int(), from: z.array(PersonNameSchema).nullable(), rejections: z.number().int() });
export type Approvals = z.infer<typeof ApprovalsSchema>;

/** A person's vote on an approval that needs several. */
export const VoteSchema = z.object({ user: PersonNameSchema, decision: z.enum(["allow", "reject"]), at: z.string(), feedback: z.string().nullable().optional() });
export type Vote = z.infer<typeof VoteSchema>;

/** What teams add to a question as every client sees it. */
export const QuestionTeamFieldsSchema = z.object({
  /** null: any member may answer */
  answerers: z.array(PersonNameSchema).nullable().default(null),
  approvals: ApprovalsSchema.nullable().default(null),
  votes: z.array(VoteSchema).default([]),
  escalate: z.array(EscalationStepSchema).default([]),
  /** escalation steps taken */
  escalated: z.number().int().default(0),
  /** the person whose answer settled it */
  closedByUser: PersonNameSchema.nullable().default(null),
  /** the permission rule that decided it */
  closedByRule: z.string().nullable().default(null),
  /** the input the tool ran with, when an answerer edited it before allowing */
  editedInput: z.record(z.string(), z.unknown()).nullable().default(null),
});
export type QuestionTeamFields = z.infer<typeof QuestionTeamFieldsSchema>;

/** What an asker may add to a question about who answers it (the ask API, MCP, `parley ask`). */
export const AudienceFieldsSchema = z.object({
  /** People's names: only they may answer; absent, any member of the session. */
  answerers: AnswerersSchema.optional(),
  /** `[{ after: "10m", to: ["bob"] }, …]`: with no allowed answer by then, `to` may answer too and is notified. */
  escalate: EscalationAskSchema.optional(),
});

/** The people a question names (its answerers, escalation and approvers): each must belong to its session. */
export function peopleNamed(q: { answerers?: string[] | null; escalate?: { to: string[] }[]; approvals?: { from?: string[] | null } | null }): string[] {
  return [...new Set([...(q.answerers ?? []), ...(q.escalate ?? []).flatMap((s) => s.to), ...(q.approvals?.from ?? [])])];
}

/** May this person answer now: named among its answerers (as escalated so far), or any member when it names none. */
export function mayAnswer(q: { answerers: string[] | null; escalate: EscalationStep[]; escalated: number; approvals: Approvals | null }, person: string): boolean {
  if (q.approvals?.from && !q.approvals.from.includes(person)) return false;
  if (q.answerers === null) return true;
  return q.answerers.includes(person) || q.escalate.slice(0, q.escalated).some((s) => s.to.includes(person));
}

/** Who may answer now, in words for a card that waits on others ("waiting for alice or bob"); null when any member may. */
export function waitingFor(q: { answerers: string[] | null; escalate: EscalationStep[]; escalated: number; approvals: Approvals | null }): string[] | null {
  if (q.answerers === null) return q.approvals?.from ?? null;
  const now = [...q.answerers, ...q.escalate.slice(0, q.escalated).flatMap((s) => s.to)];
  return [...new Set(q.approvals?.from ? now.filter((n) => q.approvals!.from!.includes(n)) : now)];
}
