/** Waits keyed by an id (a run's, a question's, a session's), woken when a surface hears news of it. */
export interface Wakers {
  /** Calls `wake` at each news of `key` until the function returned is called. */
  on(key: string, wake: () => void): () => void;
  /** Wakes every wait on `key`. */
  wake(key: string): void;
  /** How many keys are waited on (none left behind by waits that ended). */
  size(): number;
}

export function createWakers(): Wakers {
  const waits = new Map<string, Set<() => void>>();
  return {
    on(key, wake) {
      let set = waits.get(key);
      if (!set) waits.set(key, (set = new Set()));
      set.add(wake);
      return () => {
        set.delete(wake);
        if (set.size === 0 && waits.get(key) === set) waits.delete(key);
      };
    },
    wake(key) {
      const set = waits.get(key);
      if (set) for (const wake of [...set]) wake();
    },
    size: () => waits.size,
  };
}
