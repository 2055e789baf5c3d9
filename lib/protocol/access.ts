import { z } from "zod";
import { ModelInfoSchema } from "./model";

/**
 * Access: one owner per credential. `LOCAL_OWNER` is the administrator, the person who started the
 * server (the server token and the cookies it signs in); every other owner is a person (teams.ts),
 * signed in with a one-time link or an API token made for them.
 */
export const LOCAL_OWNER = "local";

/**
 * The browser's session cookie (HttpOnly, SameSite=Strict), signed by the server. Its name ends
 * in a tag of the signing key: cookies ignore ports, so two servers on one host keep two cookies.
 */
export const SESSION_COOKIE = "parley_session";
/** The query parameter of the URL printed at start. */
export const TOKEN_PARAM = "token";
export const MAX_TOKEN_CHARS = 200;

/**
 * `POST /api/auth/session`: exchanges the server token (the administrator), or a person's one-time
 * sign-in link (`sil_…`, as `parley user add` prints it), for the session cookie.
 */
export const SignInBodySchema = z.union([
  z.strictObject({ token: z.string().min(1, "A token is required").max(MAX_TOKEN_CHARS) }),
  z.strictObject({ link: z.string().min(1, "A sign-in link is required").max(MAX_TOKEN_CHARS) }),
]);
export type SignInBody = z.infer<typeof SignInBodySchema>;

/** `POST /api/auth/sign-out-everywhere`: no parameters (an empty body or `{}`). */
export const SignOutEverywhereBodySchema = z.strictObject({});

/** Its answer: every browser session cookie issued before `at` is refused, on every node. */
export const SignOutEverywhereResultSchema = z.object({ signedOut: z.literal("everywhere"), at: z.string() });
export type SignOutEverywhereResult = z.infer<typeof SignOutEverywhereResultSchema>;

/**
 * `GET /api/auth/session`: who the caller is; `admin` for the administrator (`local`) and people
 * added with --admin; `model`, the chat's model (the header shows it), when the server knows it.
 */
export const WhoAmISchema = z.object({ ownerId: z.string(), via: z.enum(["cookie", "server_token", "api_token"]), admin: z.boolean(), model: ModelInfoSchema.optional() });
export type WhoAmI = z.infer<typeof WhoAmISchema>;

export const ApiTokenNameSchema = z.string().trim().min(1).max(100);

/**
 * What an API token may do: `full` (everything its owner may), or `ask`: ask (`POST /api/asks`,
 * MCP at `/mcp`) and read the questions it asked, nothing else (no other chat, no answer).
 */
export const ApiTokenScopeSchema = z.enum(["full", "ask"]);
export type ApiTokenScope = z.infer<typeof ApiTokenScopeSchema>;
export const OwnerIdSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._-]{1,64}$/, "letters, digits, dot, dash and underscore, at most 64");

/** An API token as listed (its secret is shown once, at creation). */
export const ApiTokenInfoSchema = z.object({
  id: z.string(),
  ownerId: z.string(),
  name: z.string(),
  scope: ApiTokenScopeSchema,
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
});
export type ApiTokenInfo = z.infer<typeof ApiTokenInfoSchema>;

/** API tokens read `pat_<id>_<secret>`: the id finds the row, the secret is compared by hash. */
export const API_TOKEN_PATTERN = /^pat_([A-Za-z0-9]{8,32})_([A-Za-z0-9_-]{20,100})$/;

/** `POST /api/auth/revoke-token`: which API token (its id, as `parley token list` shows it). */
export const RevokeTokenBodySchema = z.strictObject({ id: z.string().trim().min(1).max(100) });
export type RevokeTokenBody = z.infer<typeof RevokeTokenBodySchema>;

/** `POST /api/auth/rotate-token`: no body (or `{}`); the new token stays in the token file on the server's machine. */
export const RotateTokenBodySchema = z.strictObject({});
export const RotateTokenResultSchema = z.object({ rotatedAt: z.string() });
export type RotateTokenResult = z.infer<typeof RotateTokenResultSchema>;
