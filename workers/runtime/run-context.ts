import type { ChildToParent } from "../../lib/protocol/ipc";
import { RunCancelled, RunParked, type RuntimeError } from "./errors";
import type { RuntimeHost } from "./types";

/**
 * What every part of one run's runtime shares: its host, whether it was stopped (the signal) or
 * parked, and the one way a message leaves for the parent.
 */
export interface RunContext {
  readonly host: RuntimeHost;
  /** Aborted when the run is stopped; its reason is the stop's. */
  readonly signal: AbortSignal;
  isParked(): boolean;
  /** Marks an error as this run's, so a stray one can be attributed to it. */
  own<E extends RuntimeError>(err: E): E;
  /** Sends a message to the parent; a parked run may not (RunParked). */
  send(message: ChildToParent): void;
  /** The RunCancelled of a stopped run, with the stop's reason. */
  cancelledError(): RunCancelled;
  /** Throws RunParked once the run is parked, RunCancelled once it is stopped. */
  checkLive(): void;
  /** Resolves after `ms`; rejects with RunCancelled when the run is stopped, RunParked when it was parked meanwhile. */
  sleep(ms: number): Promise<void>;
  /** Stops the run (aborts the signal); false when it was stopped already. */
  stop(reason: string): boolean;
  /** Marks the run parked: from now on it may do nothing. */
  park(): void;
}

export function createRunContext(host: RuntimeHost): RunContext {
  const abort = new AbortController();
  let parked = false;

  function own<E extends RuntimeError>(err: E): E {
    err.runId = host.runId;
    return err;
  }

  function cancelledError(): RunCancelled {
    const reason: unknown = abort.signal.reason;
    return own(new RunCancelled(typeof reason === "string" ? reason : "The run was stopped."));
  }

  return {
    host,
    signal: abort.signal,
    isParked: () => parked,
    own,
    send(message) {
      if (parked) throw own(new RunParked());
      host.send(message);
    },
    cancelledError,
    checkLive() {
      if (parked) throw own(new RunParked());
      if (abort.signal.aborted) throw cancelledError();
    },
    sleep(ms) {
      return new Promise((resolve, reject) => {
        if (abort.signal.aborted) return reject(cancelledError());
        const onAbort = () => {
          clearTimeout(timer);
          reject(cancelledError());
        };
        const timer = setTimeout(() => {
          abort.signal.removeEventListener("abort", onAbort);
          if (parked) reject(own(new RunParked()));
          else resolve();
        }, ms);
        abort.signal.addEventListener("abort", onAbort, { once: true });
      });
    },
    stop(reason) {
      if (abort.signal.aborted) return false;
      abort.abort(reason);
      return true;
    },
    park() {
      parked = true;
    },
  };
}
