import { jsonOrText } from "../../tests/helpers/remote";
import { authHeaders } from "../../tests/helpers/server-process";
/** JSON over REST with an abort signal (a kill aborts whatever is in flight) and a per-request timeout. */

export interface Reply<T = any> {
  status: number;
  body: T;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    route: string,
  ) {
    super(`${route} answered ${status}: ${JSON.stringify(body).slice(0, 300)}`);
  }
}

export function createApi(url: string, { signal, timeoutMs = 30_000 }: { signal?: AbortSignal; timeoutMs?: number } = {}) {
  async function once(method: "GET" | "POST", route: string, body?: unknown): Promise<Response> {
    const signals = [AbortSignal.timeout(timeoutMs), ...(signal ? [signal] : [])];
    return fetch(`${url}${route}`, {
      method,
      headers: { ...authHeaders(), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.any(signals),
    });
  }
  async function call<T>(method: "GET" | "POST", route: string, body?: unknown): Promise<Reply<T>> {
    let res: Response;
    try {
      res = await once(method, route, body);
    } catch (err) {
      // A kept-alive connection the server closed just as a request went out fails without the
      // server being at fault; once more is safe (GETs, and commands carry a commandId).
      if (signal?.aborted || (err as Error).name === "TimeoutError") throw err;
      await pause(100, signal);
      res = await once(method, route, body);
    }
    return { status: res.status, body: (await jsonOrText(res)) as T };
  }
  async function ok<T>(method: "GET" | "POST", route: string, body?: unknown): Promise<T> {
    const res = await call<T>(method, route, body);
    if (res.status < 200 || res.status > 299) throw new HttpError(res.status, res.body, `${method} ${route}`);
    return res.body;
  }
  return {
    get: <T = any>(route: string) => ok<T>("GET", route),
    post: <T = any>(route: string, body?: unknown) => ok<T>("POST", route, body),
    /** Any status: for commands whose refusal is an expected answer. */
    send: <T = any>(route: string, body?: unknown) => call<T>("POST", route, body),
    /** Any status. */
    probe: <T = any>(route: string) => call<T>("GET", route),
  };
}

export type Api = ReturnType<typeof createApi>;

/**
 * An Api over several nodes, as a load balancer would give a client: each request goes to a node
 * `pick` chooses among `urls()` (the nodes up now), and a request a node could not answer (it
 * died, the connection broke) goes again to another, for up to `retryForMs`. That is safe: GETs,
 * and every command carries a commandId. `onRoute` hears where each request went.
 */
export function createRoutedApi(
  urls: () => string[],
  pick: () => number,
  { signal, timeoutMs = 30_000, retryForMs = 20_000, onRoute }: { signal?: AbortSignal; timeoutMs?: number; retryForMs?: number; onRoute?: (url: string, method: string, route: string) => void } = {},
): Api {
  const apis = new Map<string, Api>();
  const apiOf = (url: string) => apis.get(url) ?? apis.set(url, createApi(url, { signal, timeoutMs })).get(url)!;
  function routed<K extends keyof Api>(key: K, method: string): Api[K] {
    return (async (route: string, body?: unknown) => {
      const until = Date.now() + retryForMs;
      let tried: string | undefined;
      for (;;) {
        const up = urls();
        // Another node than the one that just failed, when there is one.
        const choices = up.length > 1 && tried ? up.filter((u) => u !== tried) : up;
        if (choices.length === 0) throw new Error(`no node is up for ${method} ${route}`);
        const url = choices[Math.floor(pick() * choices.length)]!;
        onRoute?.(url, method, route);
        try {
          return await (apiOf(url)[key] as (route: string, body?: unknown) => Promise<unknown>)(route, body);
        } catch (err) {
          if (signal?.aborted || err instanceof HttpError || Date.now() > until) throw err;
          tried = url;
          await pause(100, signal);
        }
      }
    }) as Api[K];
  }
  return { get: routed("get", "GET"), post: routed("post", "POST"), send: routed("send", "POST"), probe: routed("probe", "GET") };
}

export const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    // An abort's reason: the AbortError, or the Error the aborter gave.
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
