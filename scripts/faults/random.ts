/**
 * A trial's choices follow from the seed and its number, so `--seed` (with `--only`) replays them;
 * the timing differs from one replay to the next.
 */

/** mulberry32, seeded from (seed, trial). */
export function rngFor(seed: number, trial: number): () => number {
  // murmur3's finalizer, so that neighbouring seeds and trials start far apart
  let a = seed ^ Math.imul(trial, 0x9e3779b1);
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35);
  a = (a ^ (a >>> 16)) >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  // The first outputs of neighbouring states are alike.
  next();
  next();
  return next;
}

export const choose = <T>(rng: () => number, items: readonly T[]): T => items[Math.floor(rng() * items.length)]!;

/** Checks whole-number options of a trials script (exits 2 with a message when one is not). */
export function checkWholeNumbers(options: Record<string, number>, atLeastOne: string[]): void {
  for (const [name, v] of Object.entries(options)) {
    const min = atLeastOne.includes(name) ? 1 : 0;
    if (!Number.isInteger(v) || v < min) {
      console.error(`--${name} must be a whole number${min ? " of at least 1" : ""}`);
      process.exit(2);
    }
  }
}
