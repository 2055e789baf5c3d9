import { z } from "zod";
import { nestedAtMost } from "./json-input";

/**
 * Approvals and permission rules. An approval is a question of kind "approval" in the same
 * registry as every other question; a rule decides, before anyone is asked, whether a tool call
 * is allowed, denied or needs a person.
 */

export const PermissionDecisionSchema = z.enum(["allow", "deny", "ask"]);
export type PermissionDecision = z.infer<typeof PermissionDecisionSchema>;

/** How a tool's subject is matched: a path (`docs/**`: `*` stays within a folder), a command (allow: `npm test` exactly or `npm test *`; deny and ask: `*` matches anything) or text. */
export const SubjectKindSchema = z.enum(["path", "command", "text"]);
export type SubjectKind = z.infer<typeof SubjectKindSchema>;

/** The most rules a command's card names as letting the agent change the code it runs, and each one's length. */
export const MAX_CHAIN_RULES = 5;
export const MAX_CHAIN_RULE_CHARS = 1_300;

export const MAX_PATTERN_CHARS = 200;
export const ToolNameSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, "a tool name: a letter, then letters, digits, _ . -, at most 64");
export const RulePatternSchema = z.string().trim().min(1, "A pattern may not be empty").max(MAX_PATTERN_CHARS);

/** A rule as written: in the project's default file or added to a session. */
export const PermissionRuleInputSchema = z.strictObject({
  tool: ToolNameSchema,
  /** Matched against the tool call's subject (its command, its path …); `*` alone matches every call. */
  pattern: RulePatternSchema,
  decision: PermissionDecisionSchema,
  /**
   * For a tool that runs in a folder (shell): the working folder, relative to the workspace (`.`
   * its top folder), the rule is limited to. Absent or null: every folder.
   */
  cwd: z.string().trim().min(1).max(1_000).nullable().optional(),
});
export type PermissionRuleInput = z.infer<typeof PermissionRuleInputSchema>;

/** The longest a grant that ends may last: longer is "for good". */
export const MAX_GRANT_MS = 366 * 24 * 3_600_000;

/**
 * When a rule a person grants stops applying ("Allow always" for an hour, until the end of their
 * day): an ISO 8601 time with its offset, in the future and within a year (checked when it is
 * granted). Absent: for good.
 */
export const GrantUntilSchema = z.iso.datetime({ offset: true, error: "until is an ISO 8601 time with an offset, such as 2026-12-07T18:00:00Z" });

/** `POST /api/sessions/{id}/rules`: a rule, for good or `until` a time. */
export const CreateRuleBodySchema = PermissionRuleInputSchema.extend({ until: GrantUntilSchema.optional() });
export type CreateRuleBody = z.infer<typeof CreateRuleBodySchema>;

/** A session's rule as listed. */
export const PermissionRuleSchema = PermissionRuleInputSchema.extend({
  id: z.string(),
  /** null for a rule of the project's default file. */
  sessionId: z.string().nullable(),
  /** `builtin` (Parley's own, not removable), `project` (the default file), `always` (an "Allow always" answer) or `manual` (added in the panel or over REST). */
  source: z.enum(["builtin", "project", "always", "manual"]),
  createdAt: z.string().nullable(),
  /** Who made it (answered "Allow always", or added it); null for the project's, Parley's, or one older than this was kept. */
  createdBy: z.string().nullable().optional(),
  /** When it stops applying; null: for good. */
  expiresAt: z.string().nullable().optional(),
  /** How many approvals it settled without a person (or closed when it was added). */
  uses: z.number().int().min(0).optional(),
  /** The tool is not in the catalogue: the rule is kept but can match nothing today. */
  unknownTool: z.boolean(),
  /** How the tool's subject is matched (the panel words the rule by it); null or absent for a tool not in the catalogue. */
  subjectKind: SubjectKindSchema.nullable().optional(),
});
export type PermissionRule = z.infer<typeof PermissionRuleSchema>;

/**
 * `GET /api/sessions/{id}/rules`. A deny rule that matches beats every ask and allow rule, an ask
 * rule beats every allow rule, whatever their age or source; `builtin` rules (Parley's own: no
 * path tool touches `.git` or `.env*`) are listed first, then the project's, then the session's.
 */
export const SessionRulesSchema = z.object({
  builtin: z.array(PermissionRuleSchema).default([]),
  project: z.array(PermissionRuleSchema),
  session: z.array(PermissionRuleSchema),
});
export type SessionRules = z.infer<typeof SessionRulesSchema>;

export const RuleIdSchema = z.string().min(1).max(200);

/** What to do when nobody answers an approval in time. */
export const ApprovalFallbackSchema = z.enum(["deny", "allow"]);

export const MAX_PREVIEW_CHARS = 20_000;

/**
 * What a command Parley runs can reach: `sandboxed` (only the workspace changes, no network),
 * `network` (sandboxed, with network access), `unsandboxed` (bubblewrap cannot run here), `opted-out`
 * (PARLEY_SANDBOX=off). Absent on a command Parley does not run (an outside tool's approval).
 */
export const CommandBoundSchema = z.enum(["sandboxed", "network", "unsandboxed", "opted-out"]);
export type CommandBound = z.infer<typeof CommandBoundSchema>;

/** A readable preview of a tool's input, by shape. */
export const ToolPreviewSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("command"),
    command: z.string().max(MAX_PREVIEW_CHARS),
    cwd: z.string().max(1_000).optional(),
    bound: CommandBoundSchema.optional(),
    /**
     * For a command that runs the workspace's code (a test runner, a build): the rules that let the
     * agent change the workspace without asking, named by the server when the question is asked.
     */
    chain: z.array(z.string().min(1).max(MAX_CHAIN_RULE_CHARS)).max(MAX_CHAIN_RULES).optional(),
  }),
  z.object({ type: z.literal("diff"), path: z.string().max(1_000), diff: z.string().max(MAX_PREVIEW_CHARS) }),
  z.object({ type: z.literal("list"), items: z.array(z.string().max(1_000)).max(100) }),
  z.object({ type: z.literal("text"), text: z.string().max(MAX_PREVIEW_CHARS) }),
]);
export type ToolPreview = z.infer<typeof ToolPreviewSchema>;

/** A rule an "Allow always" answer may add, as the card offers it. */
export const AlwaysOptionSchema = z.object({
  pattern: RulePatternSchema,
  /** The working folder the rule is limited to (`.` the workspace's top folder); null for a tool without one. */
  cwd: z.string().max(1_000).nullable().default(null),
  /** What it allows, in words the person reads: "`npm test` exactly", "`npm test` with any further arguments", "any file under `docs/`". */
  label: z.string().min(1).max(500),
});
export type AlwaysOption = z.infer<typeof AlwaysOptionSchema>;

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
/** Whether text holds NUL or another C0/C1 control character (DEL too): no file name a person means does. */
export const hasControlChar = (text: string): boolean => CONTROL_CHARS.test(text);

/**
 * The folders a tool from outside works in, as its asker declares them (absolute): an edited
 * absolute path must fall under one (lib/permissions/edited-paths.ts). Without any, an edit may
 * only name relative paths.
 */
export const EditRootsSchema = z
  .array(
    z
      .string()
      .min(1)
      .max(1_000)
      .refine((root) => /^(\/|[a-z]:[\\/])/i.test(root), "a root is an absolute folder (/home/me/project, C:\\work)")
      .refine((root) => !hasControlChar(root), "a root holds no control character"),
  )
  .max(20);

/** A tool's input as JSON Schema (an object's), bounded in nesting before anything walks it. */
export const ToolInputJsonSchemaSchema = nestedAtMost(32).pipe(z.record(z.string(), z.unknown()));

/**
 * How an answerer may edit the call before allowing it ("Edit and allow"): the input's JSON Schema
 * (the edit is checked against it), and who reads the edited call's subject again for the rules:
 * `catalogue` a tool of Parley's catalogue (its own schema and subject), `outside` a tool from
 * outside Parley (its subject read by `subjectKind`, as workers/tools/external-tool.ts does).
 */
export const ApprovalEditSchema = z.object({ schema: ToolInputJsonSchemaSchema, reader: z.enum(["catalogue", "outside"]), roots: EditRootsSchema.optional() });
export type ApprovalEdit = z.infer<typeof ApprovalEditSchema>;

/** What an approval asks about: the part a worker sends with a question of kind "approval". */
const ApprovalSpecObject = z.object({
  tool: ToolNameSchema,
  /** The tool's input, as the tool will get it (bounded). */
  input: nestedAtMost(32),
  preview: ToolPreviewSchema,
  /** What rules match: the command, the path … */
  subject: z.string().max(MAX_PREVIEW_CHARS),
  subjectKind: SubjectKindSchema,
  /**
   * The folder the call runs in, relative to the workspace and normalised (`.` its top folder): a
   * rule with a `cwd` matches only calls in exactly that folder. null for a tool without one.
   */
  cwd: z.string().max(1_000).nullable().default(null),
  /**
   * The rules "Allow always" may add: first exactly this call (answer `always`), then, when the
   * tool can say it safely, one wider rule (answer `always_wider`). Empty: only "Allow once".
   */
  always: z.array(AlwaysOptionSchema).max(2).default([]),
  /** Dangerous tools need a person unless a rule says otherwise; the rest are allowed by default. */
  dangerous: z.boolean(),
  fallback: ApprovalFallbackSchema.default("deny"),
  /** null: the call can only be allowed as it is (a tool whose subject the server cannot read again). */
  edit: ApprovalEditSchema.nullish(),
});

/** An approval stored before `always` existed had one `alwaysPattern`: read it as its only option. */
export const ApprovalSpecSchema = z.preprocess((raw) => {
  if (!raw || typeof raw !== "object" || Array.isArray(raw) || "always" in raw || !("alwaysPattern" in raw)) return raw;
  const { alwaysPattern, ...rest } = raw as Record<string, unknown>;
  return typeof alwaysPattern === "string" ? { ...rest, always: [{ pattern: alwaysPattern, label: alwaysPattern }] } : rest;
}, ApprovalSpecObject);
export type ApprovalSpec = z.output<typeof ApprovalSpecObject>;
export type ApprovalSpecInput = z.input<typeof ApprovalSpecObject>;

/**
 * The answers an approval takes through `question.reply` (a reject is `question.reject`, its
 * message the feedback): `always` adds `always[0]`, `always_wider` adds `always[1]`.
 */
export const APPROVAL_ANSWERS = ["once", "always", "always_wider"] as const;
export const ApprovalAnswerSchema = z.enum(APPROVAL_ANSWERS);
export type ApprovalAnswer = z.infer<typeof ApprovalAnswerSchema>;

/** A tool of the catalogue, as the server and clients know it. */
export const ToolInfoSchema = z.object({ name: ToolNameSchema, description: z.string(), dangerous: z.boolean(), subjectKind: SubjectKindSchema });
export type ToolInfo = z.infer<typeof ToolInfoSchema>;

/**
 * How the server words an approval it declined itself (a deny rule, or a run nobody can answer):
 * the worker tells such a denial from a person's rejection by it, the same live and on replay.
 */
export const SERVER_DENIAL_PREFIXES = ["Denied by ", "Nobody can approve "] as const;
export const isServerDenial = (feedback: string | null | undefined): boolean => !!feedback && SERVER_DENIAL_PREFIXES.some((p) => feedback.startsWith(p));
