import { performance } from "node:perf_hooks";

/** The event loop's busy share (0–1) since the meter's previous reading (the first reading: since the meter was made). */
export function loopUtilisationMeter(): () => number {
  let last = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization;
  };
}

/**
 * Whether the event loop has been mostly idle lately: its busy share over the last `windowMs`
 * (read again at most once a window, so asking often costs nothing) under `threshold`.
 */
export function quietLoop({ threshold, windowMs }: { threshold: number; windowMs: number }, utilisation = loopUtilisationMeter(), now = () => performance.now()): () => boolean {
  let readAt = now();
  let quiet = true;
  return () => {
    const t = now();
    if (t - readAt >= windowMs) {
      quiet = utilisation() < threshold;
      readAt = t;
    }
    return quiet;
  };
}
