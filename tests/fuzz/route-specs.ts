import type { z } from "zod";
import { AskBodySchema } from "../../lib/protocol/asks";
import { AuditQuerySchema } from "../../lib/protocol/audit";
import { ChannelOutboxQuerySchema, ChannelTextBodySchema } from "../../lib/protocol/channels";
import { RevokeTokenBodySchema, RotateTokenBodySchema, SignInBodySchema, SignOutEverywhereBodySchema } from "../../lib/protocol/access";
import { CreateRuleBodySchema } from "../../lib/protocol/permissions";
import { PushSubscribeBodySchema, RemovePushSubscriptionBodySchema, SessionPushBodySchema } from "../../lib/protocol/push";
import { RejectBodySchema, ReplyBodySchema, ResumeBodySchema, RetryRunBodySchema, StartRunBodySchema, StopRunBodySchema } from "../../lib/protocol/commands";
import {
  CreateSessionBodySchema,
  DeleteSessionBodySchema,
  PostMessageBodySchema,
  QuestionsQuerySchema,
  RemoveRuleBodySchema,
  RenameSessionBodySchema,
  SignOutBodySchema,
} from "../../lib/protocol/rest";
import { API_ROUTES, type ApiRoute } from "../../lib/protocol/routes";
import { RenamePersonBodySchema } from "../../lib/protocol/display-names";
import { SessionSlackBodySchema, SlackLinkBodySchema } from "../../lib/protocol/slack";
import { PersonEmailBodySchema } from "../../lib/protocol/email";
import { AddMemberBodySchema, AddPersonBodySchema, NewSignInLinkBodySchema, RemoveMemberBodySchema, RemovePersonBodySchema } from "../../lib/protocol/teams";

/**
 * What each REST route takes, beside API_ROUTES (which says which methods it answers): the body
 * schema of a write, whether an empty body counts as `{}`, the query schema, and what its `:id` names.
 */

export type Target = "session" | "question" | "run" | "push_subscription";

export interface BodySpec {
  schema: z.ZodType;
  /** An empty body is read as `{}` (the route's readJson has `optional: true`). */
  optional: boolean;
}

export const BODY_SPECS: Record<string, BodySpec> = {
  "POST /api/auth/session": { schema: SignInBodySchema, optional: false },
  "DELETE /api/auth/session": { schema: SignOutBodySchema, optional: true },
  "POST /api/auth/sign-out-everywhere": { schema: SignOutEverywhereBodySchema, optional: true },
  // The test server's token comes from PARLEY_TOKEN, so a valid body is refused (403) and the token stays.
  "POST /api/auth/rotate-token": { schema: RotateTokenBodySchema, optional: true },
  // A valid body names a random id: no such token (400), or another owner's credential (403).
  "POST /api/auth/revoke-token": { schema: RevokeTokenBodySchema, optional: false },
  "POST /api/sessions": { schema: CreateSessionBodySchema, optional: true },
  "PATCH /api/sessions/:id": { schema: RenameSessionBodySchema, optional: false },
  // Strict and empty: a body the fuzz aims at the sentinel session is refused before anything is deleted.
  "DELETE /api/sessions/:id": { schema: DeleteSessionBodySchema, optional: true },
  "POST /api/sessions/:id/messages": { schema: PostMessageBodySchema, optional: false },
  "POST /api/sessions/:id/runs": { schema: StartRunBodySchema, optional: false },
  "POST /api/sessions/:id/rules": { schema: CreateRuleBodySchema, optional: false },
  // Strict and empty, as the session's DELETE: a body aimed at the sentinel session removes no rule.
  "DELETE /api/sessions/:id/rules/:ruleId": { schema: RemoveRuleBodySchema, optional: true },
  // A valid body names someone who is no person (404): the sentinel session is shared with nobody.
  "POST /api/sessions/:id/members": { schema: AddMemberBodySchema, optional: false },
  // Strict and empty, as the session's DELETE: a body aimed at the sentinel session removes nobody.
  "DELETE /api/sessions/:id/members/:user": { schema: RemoveMemberBodySchema, optional: true },
  "POST /api/questions/:id/reply": { schema: ReplyBodySchema, optional: false },
  "POST /api/questions/:id/reject": { schema: RejectBodySchema, optional: true },
  "POST /api/runs/:id/resume": { schema: ResumeBodySchema, optional: true },
  "POST /api/runs/:id/stop": { schema: StopRunBodySchema, optional: true },
  "POST /api/runs/:id/retry": { schema: RetryRunBodySchema, optional: true },
  "POST /api/channels/text": { schema: ChannelTextBodySchema, optional: false },
  // A valid body asks in a chat of its own (named after `from`): the sentinel is not touched.
  "POST /api/asks": { schema: AskBodySchema, optional: false },
  // A valid body names an endpoint on a host the server does not allow (422), or keys that are no keys (400): nothing is stored.
  "POST /api/push/subscriptions": { schema: PushSubscribeBodySchema, optional: false },
  // Strict and empty, as the session's DELETE: a body aimed at the sentinel's subscription removes nothing.
  "DELETE /api/push/subscriptions/:id": { schema: RemovePushSubscriptionBodySchema, optional: true },
  "PUT /api/sessions/:id/push": { schema: SessionPushBodySchema, optional: false },
  // A valid body adds a person (a name taken before is 409): no chat is touched.
  "POST /api/users": { schema: AddPersonBodySchema, optional: false },
  // Strict and empty; the path names no person (404).
  "DELETE /api/users/:name": { schema: RemovePersonBodySchema, optional: true },
  "PATCH /api/users/:name": { schema: RenamePersonBodySchema, optional: false },
  "POST /api/users/:name/link": { schema: NewSignInLinkBodySchema, optional: true },
  // The test server has no Slack: a valid body is refused (400), and the path names no person (404).
  "PUT /api/users/:name/slack": { schema: SlackLinkBodySchema, optional: false },
  "PUT /api/sessions/:id/slack": { schema: SessionSlackBodySchema, optional: false },
  // The path names no person (404).
  "PUT /api/users/:name/email": { schema: PersonEmailBodySchema, optional: false },
};

/**
 * Writes whose body is not JSON and whose credential is in the request itself (API_ROUTES'
 * `signed`): Slack's signed interactions, an email's answer form. Their own suites cover their
 * bodies (tests/slack.integration.test.ts, tests/email.integration.test.ts); here any request gets
 * a typed refusal or a redirect, never a 2xx nor a 5xx.
 */
export const SIGNED_WRITES: ReadonlySet<string> = new Set(["POST /api/slack/interactions", "POST /api/answer/:token"]);

/** Writes without a body (none now: every write's body is checked, an empty one included). */
export const BODYLESS_WRITES = new Set<string>();

export const QUERY_SPECS: Record<string, z.ZodType> = {
  "GET /api/questions": QuestionsQuerySchema,
  "GET /api/channels/text/outbox": ChannelOutboxQuerySchema,
  "GET /api/audit": AuditQuerySchema,
};

export const STANDARD_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export const keyOf = (method: string, route: ApiRoute) => `${method} ${route.path}`;

/** What a route's `:id` names, by the collection it is under. */
export function targetOf(route: ApiRoute): Target | null {
  if (!route.path.includes(":id")) return null;
  if (route.path.startsWith("/api/sessions/")) return "session";
  if (route.path.startsWith("/api/questions/")) return "question";
  if (route.path.startsWith("/api/runs/")) return "run";
  if (route.path.startsWith("/api/push/subscriptions/")) return "push_subscription";
  throw new Error(`the fuzz suite does not know what ${route.path}'s :id names`);
}

/** The route's path with `id` as its `:id`; any other parameter (`:ruleId`) names nothing. */
export const pathWith = (route: ApiRoute, id: string) => route.path.replace(/:(?!id\b)[A-Za-z]+/g, "fuzz-missing").replace(":id", id);

/**
 * Routes that speak another protocol once the gate lets a request through: MCP's JSON-RPC over
 * Streamable HTTP (the SDK's answers, JSON-RPC errors included). Only what the gate answers
 * (methods, path spellings, credentials) is fuzzed here; tests/mcp.integration.test.ts covers the rest.
 */
export const OWN_PROTOCOL_ROUTES: ReadonlySet<string> = new Set(["/mcp"]);

/** Every write in API_ROUTES has a body spec or is known to take none: a new route cannot slip past the suite. */
export function uncoveredWrites(): string[] {
  return API_ROUTES.filter((route) => !OWN_PROTOCOL_ROUTES.has(route.path)).flatMap((route) =>
    route.methods
      .filter((m) => WRITE_METHODS.has(m))
      .map((m) => keyOf(m, route))
      .filter((key) => !(key in BODY_SPECS) && !BODYLESS_WRITES.has(key) && !SIGNED_WRITES.has(key)),
  );
}
