import { z } from "zod";
import { defaultDisplayName, type NameOf } from "./display-names";
import { describeFormAnswer, isFlatForm } from "./forms";
import { PermissionDecisionSchema } from "./permissions";
import { JsonValueSchema, QuestionKindSchema, QuestionOutcomeSchema, type Question } from "./question";
import { PersonNameSchema } from "./teams";
import { AnswerSurfaceSchema, CLOSED_BY_WORDS, ClosedBySchema, type ClosedBy } from "./surfaces";

/** From where a question was settled, in words; null when the outcome says it. */
export function describeVia(closedBy: ClosedBy | null): string | null {
  return closedBy === null ? null : CLOSED_BY_WORDS[closedBy];
}

/** Who stopped a run, for its transcript line and its error: the person who owns the chat reads "you". */
export function stoppedBy(by: "rest" | "cli" | "asker"): string {
  if (by === "asker") return "Withdrawn by the asker.";
  return by === "cli" ? "Stopped from the CLI." : "Stopped by you.";
}

/** "30 minutes", "20 seconds", "1 hour", "90 minutes". */
export function formatDuration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds < 120) return unit(seconds, "second");
  const minutes = Math.round(seconds / 60);
  if (minutes % 60 !== 0 || minutes < 60) return unit(minutes, "minute");
  return unit(minutes / 60, "hour");
}

/** What was asked, in one line: the prompt, or for an approval the tool and its subject. */
export function askedLine(q: Question): string {
  return q.approval ? `${q.owner} asked to use ${q.approval.tool}: ${q.approval.subject}` : `${q.owner} asked: ${q.prompt}`;
}

/** Who reads a settled question: their own answers read "by you"; everyone else by their display name (`nameOf`, ./display-names). */
export interface Viewpoint {
  viewer?: string | null;
  nameOf?: NameOf;
}

/** A person as the reader sees them: "you", or their one display name ("Administrator" for `local` until renamed). */
export function personLabel(person: string, { viewer = null, nameOf = defaultDisplayName }: Viewpoint = {}): string {
  if (viewer !== null && person === viewer) return "you";
  return nameOf(person);
}

/** Who settled it and from where: "by alice, in a browser tab", "by you, from the CLI"; the surface alone when no person is recorded; null for neither. */
export function settledVia(q: Pick<Question, "closedBy" | "closedByUser">, view: Viewpoint = {}): string | null {
  const via = describeVia(q.closedBy);
  if (!q.closedByUser) return via;
  const by = `by ${personLabel(q.closedByUser, view)}`;
  return via ? `${by}, ${via}` : by;
}

/** A rule as its decisions name it: "shell npm test*", "make * in packages/app". */
export const describeRule = (rule: { tool: string; pattern: string; cwd?: string | null }) => `${rule.tool} ${rule.pattern}${rule.cwd != null ? ` in ${rule.cwd}` : ""}`;

/** A rule that decided, as named: its words (describeRule), and whether an "Allow always" answer made it. */
export interface RuleNamed {
  rule: string;
  always: boolean;
}

/** The rule a server's rule feedback names: `… the rule "shell rm*".` or `… "Allow always" (write_file docs/**).` */
export function ruleOf(feedback: string | null): RuleNamed | null {
  if (!feedback) return null;
  const always = /Allow always/i.test(feedback);
  const paren = always ? /\(([^()]+)\)\.?\s*$/.exec(feedback) : null;
  if (paren) return { rule: paren[1]!.trim(), always };
  const quoted = /\brule\s+"([^"]+)"/i.exec(feedback) ?? /\brule\s+“([^”]+)”/i.exec(feedback);
  return quoted ? { rule: quoted[1]!.trim(), always } : null;
}

/** A rule's decision: "Allowed by rule “shell npm test*”", "… (from Allow always)"; "Denied by rule" when it is not known which. */
export function ruleDecisionLine(allowed: boolean, rule: RuleNamed | null): string {
  const verb = allowed ? "Allowed" : "Denied";
  return rule ? `${verb} by rule “${rule.rule}”${rule.always ? " (from Allow always)" : ""}` : `${verb} by rule`;
}

const ALLOWED = new Map<unknown, string>([
  ["once", "Allowed once"],
  ["always", "Allowed always"],
  ["always_wider", "Allowed always (the wider rule)"],
]);

/** A person's allow: "Allowed once", "Allowed always", "Allowed always (the wider rule)", "… (input edited)". */
export function allowedLine(q: Pick<Question, "answer" | "editedInput">): string {
  const how = ALLOWED.get(q.answer) ?? `Allowed: ${typeof q.answer === "string" ? q.answer : JSON.stringify(q.answer)}`;
  return q.editedInput ? `${how} (input edited)` : how;
}

/** What the reader of a line knows besides the question: who reads it, and the rule that decided it (the audit reads it from the rule's row). */
export interface OutcomeContext extends Viewpoint {
  rule?: { tool: string; pattern: string; cwd?: string | null } | null;
}

/** The rule that settled a question: the one the context names, else the one its feedback names. */
function decidingRule(q: Question, rule: OutcomeContext["rule"]): RuleNamed | null {
  const named = ruleOf(q.feedback);
  return rule ? { rule: describeRule(rule), always: named?.always ?? false } : named;
}

/**
 * How it ended, in one line, naming who settled it and from where ("Allowed once by alice, in a
 * browser tab", "by you" for the reader's own), or the rule that decided ("Allowed by rule “shell
 * npm test*”"); "No answer in 30 minutes: denied" …; empty while pending. The CLI, the audit and
 * the terminal say it this way; the web UI's record uses the same pieces (settledVia, ruleDecisionLine).
 */
/** An answer as a person reads it: a confirm's Yes or No, a form's fields, anything else as JSON. */
function answerWords(q: Question): string {
  if (q.kind === "confirm" && typeof q.answer === "boolean") return q.answer ? "Yes" : "No";
  return isFlatForm(q.replySchema) ? `(${describeFormAnswer(q.replySchema, q.answer)})` : JSON.stringify(q.answer);
}

export function outcomeLine(q: Question, context: OutcomeContext = {}): string {
  if (q.status === "pending") return "";
  const settled = settledVia(q, context);
  const where = settled ? (q.closedByUser ? ` ${settled}` : `, ${settled}`) : "";
  const feedback = q.feedback ? `: ${q.feedback}` : "";
  if (q.kind === "approval") {
    const waited = q.expiresAt ? formatDuration(Date.parse(q.expiresAt) - Date.parse(q.createdAt)) : null;
    const byRule = q.closedBy === "rule" ? decidingRule(q, context.rule) : null;
    switch (q.status) {
      case "answered":
        if (q.closedBy === "rule") return byRule ? ruleDecisionLine(true, byRule) : (q.feedback ?? "Allowed by a rule");
        return `${allowedLine(q)}${where}`;
      case "declined":
        if (q.closedBy === "rule") return byRule ? ruleDecisionLine(false, byRule) : (q.feedback ?? "Denied by a rule");
        return `Rejected${where}${feedback}`;
      case "timed_out":
        return `No answer in ${waited ?? "time"}: ${q.approval?.fallback === "allow" ? "allowed" : "denied"}`;
      default:
        return `${q.status === "cancelled" ? "Cancelled" : "Expired"}${where}${feedback}`;
    }
  }
  switch (q.status) {
    case "answered":
      return `Answered ${answerWords(q)}${where}`;
    case "declined":
      return `Declined${where}${feedback}`;
    case "timed_out":
      return `Timed out${q.hasDefault ? ` (default ${JSON.stringify(q.default)})` : ""}`;
    default:
      return `${q.status === "cancelled" ? "Cancelled" : "Expired"}${where}${feedback}`;
  }
}

/**
 * The audit (`GET /api/audit`, `parley audit`): every settled question of the sessions the caller
 * may see, oldest first by when it closed, with who settled it, from where, or which rule did.
 */
export const AUDIT_LIMIT_DEFAULT = 100;
export const AUDIT_LIMIT_MAX = 500;

/** Where a page starts: after questions closed before `at`, and, of those closed at `at` itself, after `id` (null: after all of them). */
export interface AuditAfter {
  at: string;
  id: string | null;
}

const CURSOR_PREFIX = "c1.";
const CURSOR_ID = /^[A-Za-z0-9_-]{1,200}$/;
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;
const toBase64Url = (text: string) => btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const fromBase64Url = (text: string) => atob(text.replace(/-/g, "+").replace(/_/g, "/"));

/** The cursor after an entry: opaque to clients, it holds when the entry closed and its id, so two closed in one millisecond are both read. */
export function auditCursor(entry: { closedAt: string; id: string }): string {
  return `${CURSOR_PREFIX}${toBase64Url(`${entry.closedAt} ${entry.id}`)}`;
}

/** `after` as given: a cursor a page returned, or an ISO time (a date alone is its midnight UTC); null when it is neither. */
export function parseAuditAfter(text: string): AuditAfter | null {
  if (text.startsWith(CURSOR_PREFIX)) {
    let decoded: string;
    try {
      decoded = fromBase64Url(text.slice(CURSOR_PREFIX.length));
    } catch {
      return null;
    }
    const [at = "", id = "", ...rest] = decoded.split(" ");
    const time = new Date(at);
    return rest.length === 0 && CURSOR_ID.test(id) && !Number.isNaN(time.getTime()) && time.toISOString() === at ? { at, id } : null;
  }
  if (!ISO_TIME.test(text)) return null;
  const time = new Date(text);
  return Number.isNaN(time.getTime()) ? null : { at: time.toISOString(), id: null };
}

const limitWords = `a whole number from 1 to ${AUDIT_LIMIT_MAX}`;

/** `GET /api/audit?session=&after=&limit=` (`parley audit` sends the same). */
export const AuditQuerySchema = z.strictObject({
  /** One session, by its id or its title (the most recent with that title). */
  session: z.string().trim().min(1, "an id or a title").max(200).optional(),
  after: z
    .string()
    .trim()
    .max(400)
    .transform((text, ctx) => {
      const after = parseAuditAfter(text);
      if (!after) ctx.addIssue({ code: "custom", message: "an ISO time (2026-12-05T10:00:00Z) or the `next` cursor of a page" });
      return after ?? z.NEVER;
    })
    .optional(),
  limit: z.coerce.number({ error: limitWords }).int(limitWords).min(1, limitWords).max(AUDIT_LIMIT_MAX, limitWords).default(AUDIT_LIMIT_DEFAULT),
});
export type AuditQuery = z.infer<typeof AuditQuerySchema>;

/** The rule that decided, as it stands now (null in an entry when it has been removed since). */
export const AuditRuleSchema = z.object({ tool: z.string(), pattern: z.string(), decision: PermissionDecisionSchema, cwd: z.string().nullable() });
export type AuditRule = z.infer<typeof AuditRuleSchema>;

/** One person's vote on an approval that needs several (`name`: their display name). */
export const AuditVoteSchema = z.object({
  user: PersonNameSchema,
  name: z.string(),
  decision: z.enum(["allow", "reject"]),
  at: z.string(),
  surface: AnswerSurfaceSchema,
  feedback: z.string().nullable(),
});
export type AuditVote = z.infer<typeof AuditVoteSchema>;

export const AuditEntrySchema = z.object({
  /** The question's id. */
  id: z.string(),
  sessionId: z.string(),
  sessionTitle: z.string(),
  runId: z.string(),
  kind: QuestionKindSchema,
  /** Who asked: the agent function, or an outside asker's name (the question's `owner`). */
  askedBy: z.string(),
  /** What was asked, in a line (askedLine). */
  asked: z.string(),
  status: QuestionOutcomeSchema,
  answer: JsonValueSchema.nullable(),
  feedback: z.string().nullable(),
  /** The surface it was settled from, or what settled it (rule, timeout, stop …): ./surfaces. */
  closedBy: ClosedBySchema.nullable(),
  /** The surface in words (describeVia). */
  via: z.string().nullable(),
  /** The person whose answer settled it (`local`: the administrator); null when a rule, a timer or the server did. */
  person: PersonNameSchema.nullable(),
  /** That person's display name, as `outcome` names them. */
  personName: z.string().nullable(),
  /** The permission rule that decided it (its id), and that rule while it still exists. */
  ruleId: z.string().nullable(),
  rule: AuditRuleSchema.nullable(),
  /** An approval allowed with an edited input: the input the tool ran with, and the input it asked with. */
  editedInput: z.record(z.string(), z.unknown()).nullable(),
  originalInput: z.record(z.string(), z.unknown()).nullable(),
  /** The votes of an approval that needs several people, in the order they came. */
  votes: z.array(AuditVoteSchema),
  /** How it ended, in a line (outcomeLine), people by their display names. */
  outcome: z.string(),
  createdAt: z.string(),
  closedAt: z.string(),
  /** Pass as `after` to read what settled after this entry. */
  cursor: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** A page of the audit; `next` continues it (null: nothing settled after it yet; the last entry's `cursor` follows it later). */
export const AuditPageSchema = z.object({ entries: z.array(AuditEntrySchema), next: z.string().nullable() });
export type AuditPage = z.infer<typeof AuditPageSchema>;
