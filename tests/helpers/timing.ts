import { expect } from "vitest";

/**
 * Time in tests: no absolute wall-clock bound. What must happen promptly (rather than at some
 * periodic check, lease or timer) is held to a multiple of a floor measured in the same run (the same
 * path without what would make it slow, or a plain round trip to the same server begun at the same
 * moment), so a loaded machine slows the floor and what is measured alike. A fixed number of
 * milliseconds is only a ceiling for what would otherwise hang, far above anything that passes.
 */

/** The ceiling for what would otherwise hang: never a measure of speed. */
export const HANG_MS = 30_000;

/** How many times its floor a prompt step may take. */
export const PROMPT_RATIO = 10;
/** And a constant besides: a pause of the scheduler or the garbage collector between the two. */
export const PROMPT_SLACK_MS = 100;

/** The most a step may take and still count as prompt, given the floor measured beside it. */
export function promptBound(floorMs: number): number {
  return PROMPT_RATIO * floorMs + PROMPT_SLACK_MS;
}

/** How long a plain REST round trip to the server at `url` takes now (GET /api/health, which reads its database once). */
export async function roundTripMs(url: string): Promise<number> {
  const sent = performance.now();
  const res = await fetch(`${url}/api/health`);
  await res.arrayBuffer();
  return performance.now() - sent;
}

interface Disconnectable {
  connected: boolean;
  once(event: "disconnect", listener: (reason: string) => void): unknown;
}

/** The socket's disconnect: its reason and when it was heard (performance.now()). Fails only past `ms`, a ceiling for a hang. */
export function disconnectOf(socket: Disconnectable, ms = HANG_MS): Promise<{ reason: string; at: number }> {
  if (!socket.connected) return Promise.resolve({ reason: "already disconnected", at: performance.now() });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still connected after ${ms} ms`)), ms);
    socket.once("disconnect", (reason) => {
      clearTimeout(timer);
      resolve({ reason, at: performance.now() });
    });
  });
}

/**
 * A disconnect caused at once by what happened at `since` (not by a periodic check, whose period is far
 * longer): `gone` was heard within a prompt step of `since`, the step's floor a plain round trip to
 * the server at `url` begun as this is called (right at `since`).
 */
export async function expectHeardPromptly(url: string, gone: ReturnType<typeof disconnectOf>, { since, what }: { since: number; what: string }): Promise<void> {
  const [floor, { reason, at }] = await Promise.all([roundTripMs(url), gone]);
  expect(reason).toBe("io server disconnect");
  const after = at - since;
  expect(after, `heard the disconnect ${after.toFixed(1)} ms after ${what}; a plain round trip begun then took ${floor.toFixed(1)} ms`).toBeLessThan(promptBound(floor));
}

/** Whether `promise` has settled by the next turn of the event loop (no timer, no I/O waited for). */
export async function settledAtOnce(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}
