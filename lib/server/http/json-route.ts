import type { z } from "zod";
import { AppError, zodAppError, type WireError } from "../../protocol/errors";
import { MAX_BODY_BYTES } from "../../protocol/rest";
import type { WhoAmI } from "../../protocol/access";
import { getParley } from "../registry";
import { bearerOf } from "../access/authenticator";
import type { Parley } from "../app";
import { log } from "../log";
import { fromFetchRequest, type RouteRequest } from "./route-request";

type Params = Record<string, string | string[] | undefined>;

/** The owner the gate authenticated, and the checks of what that owner may see. */
export interface Caller {
  ownerId: string;
  via: WhoAmI["via"];
  /** Which credential: `server`, `api:<token id>` or `cookie:<issued at>`. */
  credential: string;
  /** The administrator (`local`), or a person added with --admin. */
  admin: boolean;
  see: {
    /** Resolves with the session's owner (owners never change). */
    session(id: string): Promise<{ ownerId: string }>;
    question(id: string): Promise<void>;
    run(id: string): Promise<void>;
  };
  /** Changes only a session's owner or an administrator may make (`action` in words: "delete this chat"): 404 unseen, 403 for a member. */
  manage: {
    session(id: string, action: string): Promise<void>;
  };
  /**
   * Holds this request open while it waits in a chat: the signal aborts, with `token_revoked` or
   * `no_longer_a_member` as its reason, when the credential or the membership ends. Release it after.
   */
  hold(sessionId: string | null): { signal: AbortSignal; release(): void };
}

type Handler<P extends Params> = (args: { req: RouteRequest; params: P; parley: Parley; caller: Caller }) => Promise<unknown>;
type PublicHandler<P extends Params> = (args: { req: RouteRequest; params: P; parley: Parley; caller: Caller | null }) => Promise<unknown>;

/** A route's answer: JSON data with its status, or a Response the handler made itself. */
export type RouteReply = { status: number; data: unknown } | Response;
/** A route as the direct path calls it (direct-routes.ts): no WHATWG Request or Response on the way. */
export type DirectHandler = (req: RouteRequest, params: Params) => Promise<RouteReply>;
/** A Next route handler that the direct path can also call without Next. */
export type JsonRouteHandler<P extends Params> = ((req: Request, ctx: { params: Promise<P> }) => Promise<Response>) & { direct: DirectHandler };

/** The caller the gate signed in (the request's principal), with the checks of what they may see. */
function callerOf(req: RouteRequest, parley: Parley): Caller | null {
  const principal = req.principal;
  if (!principal) return null;
  const { ownerId, via, credential, admin } = principal;
  const { visibility } = parley.access;
  const askOnly = principal.scope === "ask";
  return {
    ownerId,
    via,
    credential,
    admin,
    see: {
      session: (id) => visibility.sessionOwner(ownerId, id),
      // A token that may only ask sees the questions it asked, and no other.
      question: (id) => (askOnly ? visibility.askedBy(ownerId, credential, id) : visibility.question(ownerId, id)),
      run: (id) => visibility.run(ownerId, id),
    },
    manage: {
      session: async (id, action) => void (await visibility.manage({ ownerId, admin }, id, action)),
    },
    hold: (sessionId) => parley.held.hold({ ownerId, credential, bearer: bearerOf(req.headers.get("authorization")), cookie: req.headers.get("cookie"), sessionId }),
  };
}

/**
 * Adapts a handler to a Next route: reaches the services, maps AppError codes to HTTP statuses
 * and user-safe bodies (`{ error: { code, message } }`); unexpected errors are logged, never sent.
 */
export function jsonRoute<P extends Params = Params>(handler: Handler<P>, { status = 200 }: { status?: number } = {}): JsonRouteHandler<P> {
  return publicJsonRoute<P>(
    async (args) => {
      if (!args.caller) throw new AppError("unauthorized", "Sign in first: open the URL the server printed at start, or send Authorization: Bearer <token>.");
      return handler({ ...args, caller: args.caller });
    },
    { status },
  );
}

/** A route answered without a credential (health, sign-in); `caller` is null when there is none. */
export function publicJsonRoute<P extends Params = Params>(handler: PublicHandler<P>, { status = 200 }: { status?: number } = {}): JsonRouteHandler<P> {
  const direct = async (req: RouteRequest, params: Params): Promise<RouteReply> => {
    try {
      const parley = getParley();
      const data = await handler({ req, params: params as P, parley, caller: callerOf(req, parley) });
      return data instanceof Response ? data : { status, data };
    } catch (err) {
      const error = AppError.from(err);
      if (error.code === "internal") log.error({ err }, `[http] ${req.method} ${new URL(req.url).pathname} failed`);
      return { status: error.status, data: { error: error.toWire() } };
    }
  };
  const viaNext = async (req: Request, ctx: { params: Promise<P> }): Promise<Response> => {
    const reply = await direct(fromFetchRequest(req), await ctx.params);
    return reply instanceof Response ? reply : Response.json(reply.data, { status: reply.status });
  };
  return Object.assign(viaNext, { direct });
}

/** Refuses a caller who is not an administrator (`forbidden`). */
export function mustBeAdmin(caller: Caller, what: string): void {
  if (!caller.admin) throw new AppError("forbidden", `Only an administrator can ${what}.`);
}

export function errorResponse(error: WireError, status: number): Response {
  return Response.json({ error }, { status });
}

/** Reads a JSON body with a size limit (413), a syntax check (400) and a schema check (400). */
export async function readJson<T extends z.ZodType>(req: RouteRequest, schema: T, { optional = false } = {}): Promise<z.infer<T>> {
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > MAX_BODY_BYTES) throw tooLarge();
  const text = await req.bodyText(MAX_BODY_BYTES);
  if (text === null) throw tooLarge();
  let data: unknown;
  if (text.trim() === "" && optional) data = {};
  else {
    try {
      data = JSON.parse(text);
    } catch {
      throw new AppError("invalid_json", "The request body is not valid JSON.");
    }
  }
  const parsed = schema.safeParse(data);
  // A schema's own check may name a typed code (reply_too_deep, input_too_large …); otherwise 400.
  if (!parsed.success) throw zodAppError(parsed.error, { prefix: "Invalid request body" });
  return parsed.data;
}

const tooLarge = () => new AppError("payload_too_large", `The request body is larger than ${MAX_BODY_BYTES} bytes.`);

export function one(value: string | string[] | undefined): string {
  return Array.isArray(value) ? (value[0] ?? "") : (value ?? "");
}
