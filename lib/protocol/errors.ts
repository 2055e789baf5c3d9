import { z } from "zod";
import { clip, joinBounded, MAX_ERROR_ITEM_CHARS, MAX_ERROR_ITEMS } from "./bounded-text";

/** Every error code Parley reports, with the HTTP status it maps to. */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  /** A held request's credential was revoked, rotated or signed out while it waited. */
  token_revoked: 401,
  /** A held request's person was removed from the chat while it waited. */
  no_longer_a_member: 403,
  forbidden: 403,
  forbidden_origin: 403,
  forbidden_host: 403,
  not_an_answerer: 403,
  edit_denied: 403,
  "not_found:session": 404,
  "not_found:question": 404,
  "not_found:run": 404,
  "not_found:function": 404,
  "not_found:rule": 404,
  "not_found:push_subscription": 404,
  "not_found:person": 404,
  "not_found:route": 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_answer: 422,
  invalid_edit: 422,
  reply_too_large: 413,
  reply_too_deep: 422,
  reply_not_json: 422,
  reply_schema_mismatch: 422,
  input_too_large: 413,
  input_too_deep: 422,
  input_not_json: 422,
  invalid_schema: 422,
  schema_remote_ref: 422,
  max_requests_exceeded: 422,
  invalid_answerers: 422,
  prompt_too_long: 422,
  invalid_policy: 422,
  callback_not_allowed: 422,
  push_endpoint_not_allowed: 422,
  session_busy: 409,
  not_retryable: 409,
  command_conflict: 409,
  person_exists: 409,
  push_endpoint_taken: 409,
  slack_user_taken: 409,
  email_taken: 409,
  already_settled: 409,
  rate_limited: 429,
  unavailable: 503,
  database_busy: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export const ErrorCodeSchema = z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]);

/** The user-safe shape of an error on the wire (REST bodies, socket acks, IPC). */
export const WireErrorSchema = z.object({
  code: ErrorCodeSchema,
  message: z.string(),
  details: z.unknown().optional(),
});
export type WireError = z.infer<typeof WireErrorSchema>;

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_STATUS[code];
}

/**
 * The one error type: `message` is safe to show a user; `cause` (internal) is only logged.
 * Plain data fields so it crosses process boundaries through `toWire`.
 */
const BRAND = Symbol.for("parley.app-error");

export class AppError extends Error {
  // Next bundles route handlers apart from server.ts, so two copies of this class exist in one
  // process: `instanceof` checks a brand, not the constructor.
  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
  }

  readonly [BRAND] = true;
  readonly code: ErrorCode;
  readonly details?: unknown;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown; details?: unknown }) {
    super(message, { cause: options?.cause });
    this.name = "AppError";
    this.code = code;
    this.details = options?.details;
  }

  get status(): number {
    return httpStatusOf(this.code);
  }

  toWire(): WireError {
    return this.details === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, details: this.details };
  }

  static from(err: unknown): AppError {
    if (err instanceof AppError) return err;
    return new AppError("internal", "Something went wrong on our side.", { cause: err });
  }
}

/** The parts of a zod issue a message is built from. */
type Issue = z.core.$ZodIssue;

function describeIssue(issue: Issue): string {
  const at = issue.path.length ? `${clip(issue.path.map(String).join("."), MAX_ERROR_ITEM_CHARS / 2)}: ` : "";
  if (issue.code === "unrecognized_keys") {
    const head = `${at}Unrecognized key${issue.keys.length === 1 ? "" : "s"}: `;
    const keys = joinBounded(
      issue.keys.slice(0, MAX_ERROR_ITEMS).map((k) => JSON.stringify(clip(k, 40))),
      { separator: ", ", total: issue.keys.length, maxChars: MAX_ERROR_ITEM_CHARS - head.length },
    );
    return head + keys;
  }
  return at + issue.message;
}

/**
 * Turns a zod failure into one readable line, e.g. `value: Expected string`: the first few issues,
 * each clipped, "… and N more" for the rest, never more than about 1,000 characters whatever the input.
 */
export function describeZodError(error: z.ZodError): string {
  const issues = error.issues;
  return joinBounded(issues.slice(0, MAX_ERROR_ITEMS).map(describeIssue), { total: issues.length });
}

/** The error code a schema's own check names for an issue (`params.errorCode`), e.g. `reply_too_deep`. */
function typedCodeOf(issue: Issue): ErrorCode | null {
  if (issue.code !== "custom") return null;
  const code = (issue.params as { errorCode?: unknown } | undefined)?.errorCode;
  return typeof code === "string" && code in ERROR_STATUS ? (code as ErrorCode) : null;
}

/**
 * The AppError for a zod failure: the typed code a schema's check named (a reply too deep is
 * `reply_too_deep`, not a generic 400), else `code`; the message is bounded.
 */
export function zodAppError(error: z.ZodError, { code = "bad_request", prefix = "Invalid payload" }: { code?: ErrorCode; prefix?: string } = {}): AppError {
  let typed: ErrorCode | null = null;
  for (const issue of error.issues) if ((typed = typedCodeOf(issue))) break;
  return new AppError(typed ?? code, `${prefix}: ${describeZodError(error)}`);
}

export function parseOrThrow<T extends z.ZodType>(schema: T, data: unknown, code: ErrorCode = "bad_request"): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw zodAppError(parsed.error, { code });
  return parsed.data;
}
