/**
 * `parley/client`: a typed client of a running Parley server's ask API, for scripts and agents
 * (`parley ask` uses it too). An ask is an ordinary question: a card in every tab of its chat,
 * answered once. Node 20+ (global fetch).
 *
 *   import { createParleyClient } from "parley/client";
 *   const parley = createParleyClient({ url: "http://127.0.0.1:3000", token: process.env.PARLEY_TOKEN });
 *   const question = await parley.ask({ question: "Deploy?", options: ["yes", "no"], from: "deploy script" });
 *   const settled = await parley.answer(question.id); // settled.status: answered | declined | timed_out | cancelled
 */
import { randomUUID } from "node:crypto";
import { MAX_ASK_WAIT_SECONDS, type AskBody } from "./protocol/asks";
import { WireErrorSchema } from "./protocol/errors";
import type { Question } from "./protocol/question";

export type { AskBody, Question };

/** What the server refused, with its error code (`not_found:question`, `bad_request`, …) and HTTP status. */
export class ParleyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "ParleyError";
  }
}

export interface ParleyClientOptions {
  /** The server, e.g. http://127.0.0.1:3000. */
  url: string;
  /** An API token (`npx parley token create`) or the server token; none for a server that asks for none. */
  token?: string | null;
  /** Extra headers on every request (the CLI names itself). */
  headers?: Record<string, string>;
}

export function createParleyClient({ url, token = null, headers = {} }: ParleyClientOptions) {
  async function call<T>(method: "GET" | "POST", pathname: string, body?: unknown, extra: Record<string, string> = {}, signal?: AbortSignal): Promise<T> {
    const res = await fetch(new URL(pathname, url), {
      method,
      signal,
      headers: { ...headers, ...extra, ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const data: unknown = await res.json().catch(() => null);
    if (res.ok) return data as T;
    const wire = WireErrorSchema.safeParse((data as { error?: unknown } | null)?.error);
    throw wire.success ? new ParleyError(wire.data.code, wire.data.message, res.status) : new ParleyError("internal", `The server answered ${res.status}.`, res.status);
  }
  const enc = encodeURIComponent;

  return {
    /** Puts the question; the same `idempotencyKey` again returns the same question (a fresh key each call by default). */
    ask: (body: AskBody, { idempotencyKey = randomUUID() }: { idempotencyKey?: string } = {}) => call<Question>("POST", "/api/asks", body, { "idempotency-key": idempotencyKey }),

    /** The question now, or (with `wait`, at most 60 s) once it settles or the wait ends. */
    question: (id: string, { wait }: { wait?: number } = {}) => call<Question>("GET", `/api/questions/${enc(id)}${wait === undefined ? "" : `?wait=${wait}`}`),

    /** The question once it is settled, however long that takes (reads held a minute at a time); `signal` stops waiting (the question stays). */
    async answer(id: string, { signal }: { signal?: AbortSignal } = {}): Promise<Question> {
      for (;;) {
        signal?.throwIfAborted();
        const question = await call<Question>("GET", `/api/questions/${enc(id)}?wait=${MAX_ASK_WAIT_SECONDS}`, undefined, {}, signal);
        if (question.status !== "pending") return question;
      }
    },

    /** Withdraws a question nobody needs any more: its run stops, and every surface retracts it (unless it was answered first). */
    async withdraw(question: Pick<Question, "runId">): Promise<void> {
      await call("POST", `/api/runs/${enc(question.runId)}/stop`, { commandId: randomUUID() });
    },
  };
}

export type ParleyClient = ReturnType<typeof createParleyClient>;
