/**
 * Every REST route, with the methods it answers: the gate answers 405 (with `Allow`) for any
 * other method, and the fuzz suite walks this list. `routes.test.ts` keeps it equal to `app/api`.
 * `write` routes change state: they check Origin, want a JSON body, and are rate limited by `limit`.
 */
export type RateBucket = "replies" | "runs" | "messages" | "sessions" | "signIn";

export interface ApiRoute {
  /** Path with `:name` for a dynamic segment. */
  path: string;
  methods: readonly ("GET" | "POST" | "PATCH" | "PUT" | "DELETE")[];
  /** Answered without a credential. */
  public?: boolean;
  /** The rate bucket of its writes (POST, PATCH, DELETE). */
  limit?: RateBucket;
  /** Open to an API token of scope `ask` too (which reads only the questions it asked). */
  asks?: true;
  /** Its requests carry their own signature instead of a credential (Slack's): answered without one, its body as the signer sends it (not JSON). */
  signed?: true;
}

export const API_ROUTES: readonly ApiRoute[] = [
  { path: "/api/health", methods: ["GET"], public: true },
  { path: "/api/ready", methods: ["GET"], public: true },
  { path: "/api/metrics", methods: ["GET"] },
  { path: "/api/auth/session", methods: ["GET", "POST", "DELETE"], public: true, limit: "signIn" },
  { path: "/api/auth/sign-out-everywhere", methods: ["POST"], limit: "signIn" },
  { path: "/api/auth/rotate-token", methods: ["POST"], limit: "signIn" },
  { path: "/api/auth/revoke-token", methods: ["POST"], limit: "signIn" },
  { path: "/api/users", methods: ["GET", "POST"], limit: "sessions" },
  { path: "/api/users/:name", methods: ["DELETE", "PATCH"], limit: "sessions" },
  { path: "/api/users/:name/link", methods: ["POST"], limit: "sessions" },
  /** Everyone's display name by id (lib/protocol/display-names.ts): what a tab names people by. */
  { path: "/api/names", methods: ["GET"] },
  { path: "/api/functions", methods: ["GET"] },
  { path: "/api/sessions", methods: ["GET", "POST"], limit: "sessions" },
  { path: "/api/sessions/:id", methods: ["GET", "PATCH", "DELETE"], limit: "sessions" },
  { path: "/api/sessions/:id/messages", methods: ["POST"], limit: "messages" },
  { path: "/api/sessions/:id/history", methods: ["GET"] },
  { path: "/api/sessions/:id/runs", methods: ["GET", "POST"], limit: "runs" },
  { path: "/api/sessions/:id/rules", methods: ["GET", "POST"], limit: "sessions" },
  { path: "/api/sessions/:id/rules/:ruleId", methods: ["DELETE"], limit: "sessions" },
  { path: "/api/sessions/:id/members", methods: ["GET", "POST"], limit: "sessions" },
  { path: "/api/sessions/:id/members/:user", methods: ["DELETE"], limit: "sessions" },
  { path: "/api/asks", methods: ["POST"], limit: "runs", asks: true },
  { path: "/api/questions", methods: ["GET"] },
  { path: "/api/questions/:id", methods: ["GET"], asks: true },
  { path: "/api/questions/:id/events", methods: ["GET"], asks: true },
  { path: "/api/questions/:id/reply", methods: ["POST"], limit: "replies" },
  { path: "/api/questions/:id/reject", methods: ["POST"], limit: "replies" },
  { path: "/api/runs/:id", methods: ["GET"] },
  { path: "/api/runs/:id/resume", methods: ["POST"], limit: "runs" },
  { path: "/api/runs/:id/stop", methods: ["POST"], limit: "runs" },
  { path: "/api/runs/:id/retry", methods: ["POST"], limit: "runs" },
  /** Who settled each question, from where, or which rule did (lib/protocol/audit.ts). */
  { path: "/api/audit", methods: ["GET"] },
  { path: "/api/push/key", methods: ["GET"] },
  { path: "/api/push/subscriptions", methods: ["GET", "POST"], limit: "sessions" },
  { path: "/api/push/subscriptions/:id", methods: ["DELETE"], limit: "sessions" },
  { path: "/api/sessions/:id/push", methods: ["PUT"], limit: "sessions" },
  { path: "/api/channels/text", methods: ["POST"], limit: "messages" },
  /** Slack's interactivity requests (docs/slack.md), checked against the app's signing secret. */
  { path: "/api/slack/interactions", methods: ["POST"], public: true, signed: true, limit: "replies" },
  { path: "/api/users/:name/slack", methods: ["PUT"], limit: "sessions" },
  { path: "/api/users/:name/email", methods: ["GET", "PUT"], limit: "sessions" },
  /** An email's answer page's form (docs/email.md): its link's token is its credential. */
  { path: "/api/answer/:token", methods: ["POST"], public: true, signed: true, limit: "replies" },
  { path: "/api/sessions/:id/slack", methods: ["PUT"], limit: "sessions" },
  { path: "/api/channels/text/outbox", methods: ["GET"] },
  /** Parley's MCP server (Streamable HTTP; lib/protocol/mcp.ts): gated like the API. */
  { path: "/mcp", methods: ["GET", "POST", "DELETE"], limit: "replies", asks: true },
];

/** The route a path belongs to and its decoded parameters; undefined for no route. Throws URIError on malformed percent-encoding. */
export function matchRoute(pathname: string): { route: ApiRoute; params: Record<string, string> } | undefined {
  const segments = pathname
    .split("/")
    .filter(Boolean)
    .map((s) => decodeURIComponent(s));
  for (const route of API_ROUTES) {
    const parts = route.path.split("/").filter(Boolean);
    if (parts.length !== segments.length) continue;
    const params: Record<string, string> = {};
    if (parts.every((part, i) => (part.startsWith(":") ? ((params[part.slice(1)] = segments[i]!), true) : part === segments[i]))) return { route, params };
  }
  return undefined;
}
