import { AsyncLocalStorage } from "node:async_hooks";
import { promisify } from "node:util";

/**
 * Which run the code running now belongs to, and the timers that run created. A worker serves
 * runs one after another: a run's timers must not fire into the next one's turn, and an error
 * thrown by one must be charged to the run that caused it.
 */
export interface RunScope {
  readonly runId: string;
  /** Set when the run leaves this worker (finished, parked, failed): its timers are gone. */
  left: boolean;
  readonly timers: Map<object, TimerKind>;
}

type TimerKind = "timeout" | "interval" | "immediate";

/** An error escaped a run's code: thrown from a timer (`exception`) or a promise nobody handled (`rejection`). */
export type FaultHandler = (error: unknown, scope: RunScope | undefined, kind: "exception" | "rejection") => void;

const storage = new AsyncLocalStorage<RunScope>();
const owners = new WeakMap<object, RunScope>();
const clearers: Record<TimerKind, (handle: never) => void> = {
  timeout: clearTimeout,
  interval: clearInterval,
  immediate: clearImmediate,
};
let onFault: FaultHandler | null = null;

export function createRunScope(runId: string): RunScope {
  return { runId, left: false, timers: new Map() };
}

/** Runs `fn` as the run's code: timers it (and what it awaits) creates belong to the run. */
export function runInScope<T>(scope: RunScope, fn: () => T): T {
  return storage.run(scope, fn);
}

export function currentScope(): RunScope | undefined {
  return storage.getStore();
}

/** The run leaves the worker: its timers, intervals and immediates are cleared, and later ones never fire. */
export function leaveScope(scope: RunScope): void {
  scope.left = true;
  for (const [handle, kind] of scope.timers) clearers[kind](handle as never);
  scope.timers.clear();
}

/**
 * Replaces the global timer functions (once per process) with ones that remember which run
 * created each timer, and report an error thrown by its callback to `handler` with that run.
 */
export function installRunScopes(handler: FaultHandler): void {
  if (onFault) {
    onFault = handler;
    return;
  }
  onFault = handler;
  const g = globalThis as Record<string, unknown>;
  g.setTimeout = tracked(setTimeout, "timeout");
  g.setInterval = tracked(setInterval, "interval");
  g.setImmediate = tracked(setImmediate, "immediate");
  g.clearTimeout = untracked(clearTimeout);
  g.clearInterval = untracked(clearInterval);
  g.clearImmediate = untracked(clearImmediate);
}

type Scheduler = (callback: (...args: unknown[]) => unknown, ...rest: unknown[]) => object;
/** Any of the timer functions (setTimeout, clearInterval, …). */
type TimerFunction = (...args: never[]) => unknown;

function tracked(original: TimerFunction, kind: TimerKind): TimerFunction {
  const schedule = original as Scheduler;
  const wrapped = function (this: unknown, callback: unknown, ...rest: unknown[]) {
    const scope = storage.getStore();
    if (!scope || typeof callback !== "function") return schedule.call(this, callback as never, ...rest);
    const guarded = function (this: unknown, ...args: unknown[]) {
      // Timers never call back synchronously: `handle` is set by then.
      if (kind !== "interval") scope.timers.delete(handle);
      try {
        const out = (callback as (...a: unknown[]) => unknown).apply(this, args);
        if (out instanceof Promise) out.catch((err: unknown) => onFault?.(err, scope, "rejection"));
        return out;
      } catch (err) {
        onFault?.(err, scope, "exception");
      }
    };
    const handle = schedule.call(this, guarded, ...rest);
    if (scope.left) clearers[kind](handle as never);
    else {
      scope.timers.set(handle, kind);
      owners.set(handle, scope);
    }
    return handle;
  };
  const custom = (original as { [promisify.custom]?: unknown })[promisify.custom];
  if (custom) Object.defineProperty(wrapped, promisify.custom, { value: custom });
  return wrapped;
}

function untracked(original: TimerFunction): TimerFunction {
  return function (this: unknown, handle: unknown) {
    if (typeof handle === "object" && handle !== null) owners.get(handle)?.timers.delete(handle);
    return (original as (h: unknown) => void).call(this, handle);
  };
}
