/**
 * Coalesces work asked for by key: asked again before it starts, it runs once; asked while it
 * runs, it runs once more afterwards (so the last ask always sees a run that began after it).
 * For announcements that read the latest state (a session's pending count), where a burst of
 * changes needs one read, not one per change.
 */
export function coalescePerKey(work: (key: string) => Promise<void>, onError: (key: string, err: unknown) => void): ((key: string) => void) & { stop(): void } {
  let stopped = false;
  const scheduled = new Set<string>();
  const running = new Set<string>();
  const again = new Set<string>();

  const start = (key: string) => {
    scheduled.delete(key);
    if (stopped) return;
    running.add(key);
    work(key)
      .catch((err) => onError(key, err))
      .finally(() => {
        running.delete(key);
        if (again.delete(key)) ask(key);
      });
  };

  function ask(key: string): void {
    if (stopped || scheduled.has(key)) return;
    if (running.has(key)) {
      again.add(key);
      return;
    }
    scheduled.add(key);
    setImmediate(() => start(key));
  }
  /** Nothing asked for starts any more (shutdown: the work's resources are going). */
  return Object.assign(ask, { stop: () => void (stopped = true) });
}
