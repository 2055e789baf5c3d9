import type { SwEnv } from "./sw-env";

/**
 * The questions this device heard were closed. Push services don't keep order: a question's push
 * that was being sent when it settled can arrive after its retraction, and must not show then.
 * Kept in Cache Storage (a worker may be stopped between two pushes), the newest MAX_KEPT only.
 */
export const CLOSED_CACHE = "parley-closed";
const MAX_KEPT = 200;

const keyOf = (env: SwEnv, questionId: string) => new URL(`/parley-closed/${encodeURIComponent(questionId)}`, env.origin).href;

export async function rememberClosed(env: SwEnv, questionId: string): Promise<void> {
  const cache = await env.caches.open(CLOSED_CACHE);
  await cache.put(keyOf(env, questionId), new Response(""));
  const keys = await cache.keys();
  for (const old of keys.slice(0, Math.max(0, keys.length - MAX_KEPT))) await cache.delete(old);
}

export async function wasClosed(env: SwEnv, questionId: string): Promise<boolean> {
  const cache = await env.caches.open(CLOSED_CACHE);
  return (await cache.match(keyOf(env, questionId))) !== undefined;
}
