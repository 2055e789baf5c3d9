import { z } from "zod";

/** Every error code Parley reports, with the HTTP status it maps to. */
export const ERROR_STATUS = {
  bad_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden_origin: 403,
  forbidden_host: 403,
  "not_found:session": 404,
  "not_found:question": 404,
  "not_found:run": 404,
  "not_found:function": 404,
  "not_found:route": 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  invalid_answer: 422,
  reply_too_large: 413,
  reply_too_deep: 422,
  reply_not_json: 422,
  reply_schema_mismatch: 422,
  invalid_schema: 422,
  schema_remote_ref: 422,
  max_requests_exceeded: 422,
  prompt_too_long: 422,
  invalid_policy: 422,
  session_busy: 409,
  command_conflict: 409,
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
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }

  static from(err: unknown): AppError {
    if (err instanceof AppError) return err;
    return new AppError("internal", "Something went wrong on our side.", { cause: err });
  }
}

/** Turns a zod failure into one readable line, e.g. `value: Expected string`. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

export function parseOrThrow<T extends z.ZodType>(schema: T, data: unknown, code: ErrorCode = "bad_request"): z.infer<T> {
  const parsed = schema.safeParse(data);
  if (!parsed.success) throw new AppError(code, `Invalid payload: ${describeZodError(parsed.error)}`);
  return parsed.data;
}
