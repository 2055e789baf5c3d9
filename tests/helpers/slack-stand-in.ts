import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { slackSignature } from "../../lib/server/slack/slack-signature";

/** One call the stand-in took, as Slack's Web API would read it (form fields, JSON ones parsed). */
export interface SlackCall {
  method: string;
  token: string | undefined;
  args: Record<string, unknown>;
  /** When it came (ms since the epoch). */
  at: number;
}

/**
 * A local stand-in of Slack's Web API (https://slack.com/api/METHOD): what @slack/web-api sends it
 * (a form-encoded body, the bot token as a Bearer), answered as Slack answers: chat.postMessage
 * with the message's ts and channel (a DM to a user id is posted in a D… channel), chat.update,
 * chat.postEphemeral, views.open, users.info and users.lookupByEmail. `rateLimit(method, n)` answers the next n calls of a method 429
 * with Retry-After, as Slack does when a method is called too often.
 */
export async function startSlackStandIn({ users = {} }: { users?: Record<string, string> } = {}) {
  const calls: SlackCall[] = [];
  const limited = new Map<string, number>();
  let nextTs = 1_700_000_000;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (d: Buffer) => chunks.push(d));
    req.on("end", () => {
      const method = (req.url ?? "").replace(/^\/api\//, "").split("?")[0]!;
      const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      const args: Record<string, unknown> = {};
      for (const [key, value] of form) args[key] = key === "blocks" || key === "view" ? JSON.parse(value) : value;
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
      calls.push({ method, token, args, at: Date.now() });
      const left = limited.get(method) ?? 0;
      if (left > 0) {
        limited.set(method, left - 1);
        res.writeHead(429, { "retry-after": "1", "content-type": "application/json" }).end(JSON.stringify({ ok: false, error: "ratelimited" }));
        return;
      }
      const reply = (body: Record<string, unknown>) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
      switch (method) {
        case "chat.postMessage": {
          const channel = String(args.channel);
          return reply({ ok: true, ts: `${nextTs++}.000100`, channel: channel.startsWith("U") ? `D${channel.slice(1)}` : channel });
        }
        case "chat.update":
          return reply({ ok: true, ts: args.ts, channel: args.channel });
        case "chat.postEphemeral":
          return reply({ ok: true, message_ts: `${nextTs++}.000200` });
        case "views.open":
          return reply({ ok: true, view: { id: `V${nextTs++}` } });
        // The workspace's people (`users`: Slack user id → email), as an app with users:read.email reads them.
        case "users.info": {
          const email = users[String(args.user)];
          return reply(email ? { ok: true, user: { id: args.user, profile: { email } } } : { ok: false, error: "user_not_found" });
        }
        case "users.lookupByEmail": {
          const id = Object.entries(users).find(([, email]) => email === args.email)?.[0];
          return reply(id ? { ok: true, user: { id, profile: { email: args.email } } } : { ok: false, error: "users_not_found" });
        }
        default:
          return reply({ ok: false, error: "unknown_method" });
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
  return {
    url,
    calls,
    /** The calls of one method, oldest first. */
    of: (method: string) => calls.filter((c) => c.method === method),
    rateLimit: (method: string, times: number) => void limited.set(method, times),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
export type SlackStandIn = Awaited<ReturnType<typeof startSlackStandIn>>;

/** Sends an interaction to a server as Slack does: `payload=<JSON>`, form-encoded, signed with the app's secret at `timestamp` (now by default). */
export async function sendInteraction(serverUrl: string, secret: string, payload: unknown, { timestamp = Math.floor(Date.now() / 1000), signature }: { timestamp?: number; signature?: string } = {}) {
  const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
  const res = await fetch(`${serverUrl}/api/slack/interactions`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-slack-request-timestamp": String(timestamp),
      "x-slack-signature": signature ?? slackSignature(secret, String(timestamp), body),
    },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
}

/** A click on a button of a question's message, as Slack sends it. */
export const clickPayload = (user: string, action: { action_id: string; value?: string; selected_option?: { value: string } }, extra: Record<string, unknown> = {}) => ({
  type: "block_actions",
  user: { id: user },
  trigger_id: `trigger-${Math.random().toString(36).slice(2)}`,
  channel: { id: "C0PARLEY01" },
  message: { ts: "1.1" },
  actions: [action],
  ...extra,
});
