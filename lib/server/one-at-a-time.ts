/**
 * Work by key, one at a time on this node: work asked for a key while another runs for it starts
 * once that one has ended (whether it threw or not). Keys without work hold no memory.
 */
export function keyedSerial(): <R>(key: string, work: () => Promise<R>) => Promise<R> {
  const inFlight = new Map<string, Promise<unknown>>();
  return async (key, work) => {
    const ahead = inFlight.get(key);
    const mine = (ahead ? ahead.catch(() => undefined) : Promise.resolve()).then(work);
    inFlight.set(key, mine);
    try {
      return await mine;
    } finally {
      if (inFlight.get(key) === mine) inFlight.delete(key);
    }
  };
}
