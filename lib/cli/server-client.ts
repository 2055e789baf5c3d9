import type { PersonEmail, PersonEmailBody } from "../protocol/email";
import type { SlackLinkBody, SlackLinked } from "../protocol/slack";
import { ClientSurfaceSchema, SURFACE_HEADER } from "../protocol/rest";
import type { ApiTokenInfo, RevokeTokenBody, RotateTokenResult, SignOutEverywhereResult } from "../protocol/access";
import type { ReplyReceipt, ResumeReceipt, StartRunBody, StoppedRun } from "../protocol/commands";
import type { Run, Session } from "../protocol/entities";
import { AppError, WireErrorSchema } from "../protocol/errors";
import type { Question } from "../protocol/question";
import type { AddPersonBody, AddPersonResult, NewSignInLinkResult, People, RemovePersonResult } from "../protocol/teams";
import type { PersonRenamed, RenamePersonBody } from "../protocol/display-names";
import { readAnnouncement } from "../server/store/db/server-file";

/** The server could not be reached at all (nothing was applied by this request). */
export class ServerUnreachable extends Error {}

const HEALTH_TIMEOUT_MS = 3_000;

/** Whether a process exists (one owned by another user counts). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function isHealthy(url: string): Promise<boolean> {
  try {
    return (await fetch(new URL("/api/health", url), { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) })).ok;
  } catch {
    return false;
  }
}

/**
 * The server that owns this database, if one runs: the one named by `--server` / `PARLEY_URL`,
 * else the one announced beside the database file. A stale announcement (its process gone, or
 * its health check failing) is ignored.
 */
export interface FoundServer {
  url: string;
  /** What the CLI authenticates with: `--token` / PARLEY_TOKEN, else the token the local server announced. */
  token: string | null;
  /** The token the local server announces now (another one once rotated); absent for a token given by the person. */
  reread?: () => string | null;
}

/** A client's server token, taken anew from the server's announcement when the server refuses it (`parley token rotate`). */
export function createTokenHolder(server: FoundServer) {
  let token = server.token;
  return {
    get current() {
      return token;
    },
    /** After a refusal: whether the server now announces another token, used from now on. */
    renew(): boolean {
      const next = server.reread?.() ?? null;
      if (!next || next === token) return false;
      token = next;
      return true;
    },
    /** `attempt`, and once more with the token the server announces now when it was refused (nothing was applied). */
    async renewing<T>(attempt: () => Promise<T>, refused: (outcome: T) => boolean): Promise<T> {
      const outcome = await attempt();
      return refused(outcome) && this.renew() ? attempt() : outcome;
    },
  };
}

export async function findServer({ databaseUrl, explicit, token = null }: { databaseUrl: string; explicit?: string; token?: string | null }): Promise<FoundServer | null> {
  if (explicit) {
    if (!(await isHealthy(explicit))) throw new AppError("unavailable", `No Parley server answers at ${explicit}.`);
    return { url: explicit, token };
  }
  const announced = readAnnouncement(databaseUrl);
  if (!announced || !isProcessAlive(announced.pid)) return null;
  if (!(await isHealthy(announced.url))) return null;
  if (token) return { url: announced.url, token };
  return { url: announced.url, token: announced.token ?? null, reread: () => readAnnouncement(databaseUrl)?.token ?? null };
}

/** The server's REST API for the commands the CLI sends; errors come back as the server's AppErrors. */
export function createServerClient(server: FoundServer) {
  const { url } = server;
  const token = createTokenHolder(server);
  async function send(method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE", pathname: string, body?: unknown): Promise<Response> {
    try {
      return await fetch(new URL(pathname, url), {
        method,
        headers: {
          [SURFACE_HEADER]: ClientSurfaceSchema.enum.cli,
          ...(token.current ? { authorization: `Bearer ${token.current}` } : {}),
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      throw new ServerUnreachable(`The Parley server at ${url} could not be reached: ${(err as Error).message}`);
    }
  }
  async function call<T>(method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE", pathname: string, body?: unknown): Promise<T> {
    const res = await token.renewing(
      () => send(method, pathname, body),
      (r) => r.status === 401,
    );
    const data: unknown = await res.json().catch(() => null);
    if (!res.ok) {
      const wire = WireErrorSchema.safeParse((data as { error?: unknown } | null)?.error);
      throw wire.success ? new AppError(wire.data.code, wire.data.message, { details: wire.data.details }) : new AppError("internal", `The server answered ${res.status}.`);
    }
    return data as T;
  }
  const enc = encodeURIComponent;

  return {
    url,
    async findQuestion({ runId, pendingId }: { runId: string; pendingId: string }): Promise<Question> {
      const [question] = await call<Question[]>("GET", `/api/questions?run_id=${enc(runId)}&pending_id=${enc(pendingId)}`);
      if (!question) throw new AppError("not_found:question", `Run "${runId}" has no question with pending id "${pendingId}".`);
      return question;
    },
    reply: (questionId: string, body: { value: unknown; input?: Record<string, unknown>; digest: string | null; commandId: string }) =>
      call<ReplyReceipt>("POST", `/api/questions/${enc(questionId)}/reply`, body),
    reject: (questionId: string, body: { message: string | null; digest: string | null; commandId: string }) => call<ReplyReceipt>("POST", `/api/questions/${enc(questionId)}/reject`, body),
    resume: (runId: string, body: { commandId: string }) => call<ResumeReceipt>("POST", `/api/runs/${enc(runId)}/resume`, body),
    stop: (runId: string, body: { commandId: string }) => call<StoppedRun>("POST", `/api/runs/${enc(runId)}/stop`, body),
    signOutEverywhere: () => call<SignOutEverywhereResult>("POST", "/api/auth/sign-out-everywhere", {}),
    createSession: (title: string) => call<Session>("POST", "/api/sessions", { title }),
    startRun: (sessionId: string, body: StartRunBody) => call<Run>("POST", `/api/sessions/${enc(sessionId)}/runs`, body),
    getRun: (runId: string) => call<Run>("GET", `/api/runs/${enc(runId)}`),
    pendingIn: (sessionId: string) => call<Question[]>("GET", `/api/questions?session_id=${enc(sessionId)}`),
    rotateToken: () => call<RotateTokenResult>("POST", "/api/auth/rotate-token", {}),
    revokeToken: (id: string) => call<ApiTokenInfo>("POST", "/api/auth/revoke-token", { id } satisfies RevokeTokenBody),
    listPeople: () => call<People>("GET", "/api/users"),
    addPerson: (body: AddPersonBody) => call<AddPersonResult>("POST", "/api/users", body),
    removePerson: (name: string) => call<RemovePersonResult>("DELETE", `/api/users/${enc(name)}`),
    newSignInLink: (name: string) => call<NewSignInLinkResult>("POST", `/api/users/${enc(name)}/link`, {}),
    renamePerson: (name: string, body: RenamePersonBody) => call<PersonRenamed>("PATCH", `/api/users/${enc(name)}`, body),
    setEmail: (name: string, body: PersonEmailBody) => call<PersonEmail>("PUT", `/api/users/${enc(name)}/email`, body),
    linkSlack: (name: string, body: SlackLinkBody) => call<SlackLinked>("PUT", `/api/users/${enc(name)}/slack`, body),
  };
}

export type ServerClient = ReturnType<typeof createServerClient>;
