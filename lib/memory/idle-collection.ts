/**
 * A full garbage collection once a process has gone quiet after work. V8 grows its old generation
 * until its next full collection, and Node never tells it that the process is idle (a browser
 * does): the garbage of a burst of runs stayed in the server's RSS, about 14 KB a parked question
 * while the heap kept 0.3 KB of it. Collected when the event loop has been idle for a check's
 * interval and the heap has grown enough since, it is space the next burst reuses. Not on a large
 * heap: the pause grows with what the heap keeps (30–40 ms at the server's 42 MB here, 150–400 ms
 * at the 104 MB of a node holding 5,000 tabs), long enough to hold up a reply that comes during it;
 * there V8's own collection, which marks in slices beside the work, is left to it.
 */
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { loopUtilisationMeter } from "../loop-utilisation";

export interface IdleCollectionPolicy {
  /** How often the loop's use and the heap are looked at. */
  everyMs: number;
  /** The share of the last interval the event loop may have been busy and still count as quiet. */
  quietUtilisation: number;
  /** How much the heap must have grown since the last collection for one to be worth its pause. */
  minGrowthBytes: number;
  /** The most the heap may keep (the least it held since the last collection) for a collection's pause to stay short. */
  maxKeptBytes: number;
}

export const IDLE_COLLECTION: IdleCollectionPolicy = { everyMs: 500, quietUtilisation: 0.05, minGrowthBytes: 4 * 1024 * 1024, maxKeptBytes: 64 * 1024 * 1024 };

export interface IdleCollectorDeps {
  collect: () => void;
  heapUsed: () => number;
  /** The event loop's busy share since the last call (the first call: since start). */
  utilisation: () => number;
}

/** The decision, one check at a time (`check` answers whether it collected); no timer of its own. */
export function createIdleCollector({ collect, heapUsed, utilisation }: IdleCollectorDeps, policy: IdleCollectionPolicy = IDLE_COLLECTION) {
  // The least the heap held since the last collection: V8's own full collections lower it too.
  let floor = heapUsed();
  return {
    check(): boolean {
      const busy = utilisation();
      const used = heapUsed();
      floor = Math.min(floor, used);
      if (busy >= policy.quietUtilisation || used - floor < policy.minGrowthBytes || floor > policy.maxKeptBytes) return false;
      collect();
      floor = heapUsed();
      return true;
    },
  };
}

/** This process's full collection: `gc` when started with --expose-gc, else the same function from a context made once the flag is set. */
export function fullCollection(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}

/** Checks every `policy.everyMs` for as long as the process runs (the timer keeps no process alive). */
export function startIdleCollection(policy: IdleCollectionPolicy = IDLE_COLLECTION): void {
  const collector = createIdleCollector(
    {
      collect: fullCollection(),
      heapUsed: () => getHeapStatistics().used_heap_size,
      utilisation: loopUtilisationMeter(),
    },
    policy,
  );
  setInterval(() => collector.check(), policy.everyMs).unref();
}
