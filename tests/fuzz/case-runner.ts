import fc from "fast-check";

/**
 * Runs the suite's properties with one seed, counts their cases, and turns a failure into a
 * message that says how to replay it: `FUZZ_SEED=… FUZZ_ONLY='<property>' FUZZ_PATH=…` reruns exactly
 * the shrunk counterexample.
 */
/** Cases per property: npm test 25, npm run test:long 100, npm run fuzz 1000. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 25);
export const FUZZ_SEED = process.env.FUZZ_SEED !== undefined ? Number(process.env.FUZZ_SEED) : (Date.now() ^ Math.floor(Math.random() * 2 ** 31)) | 0;
const ONLY = process.env.FUZZ_ONLY;
const PATH = process.env.FUZZ_PATH;
/** A property (its shrinking included) stops after this; what it found by then still fails it. */
const PROPERTY_MS = Number(process.env.FUZZ_PROPERTY_MS ?? 120_000);

export const stats = { cases: 0, properties: 0, failures: [] as string[] };

export const selected = (name: string) => !ONLY || (PATH ? name === ONLY : name.includes(ONLY));

/** Counts a case (one request or one socket command sent). */
export const countCase = () => void stats.cases++;

export async function runProperty<T>(name: string, arb: fc.Arbitrary<T>, check: (value: T) => Promise<void>, { runs = FUZZ_RUNS }: { runs?: number } = {}): Promise<void> {
  if (!selected(name)) return;
  stats.properties++;
  const details = await fc.check(fc.asyncProperty(arb, check), {
    numRuns: runs,
    seed: FUZZ_SEED,
    path: PATH && ONLY === name ? PATH : undefined,
    interruptAfterTimeLimit: PROPERTY_MS,
    markInterruptAsFailure: false,
  });
  if (!details.failed) return;
  const message = [
    `${name}: ${(details.errorInstance as Error | undefined)?.message ?? String(details.errorInstance)}`,
    `  counterexample (after ${details.numShrinks} shrinks): ${clipped(details.counterexample)}`,
    `  replay: FUZZ_SEED=${details.seed} FUZZ_ONLY='${name}' FUZZ_PATH='${details.counterexamplePath}' npx vitest run tests/fuzz.integration.test.ts`,
  ].join("\n");
  stats.failures.push(message);
  throw new Error(message);
}

/** A case as short text: long strings and buffers by their size. */
export function clipped(value: unknown, max = 1_500): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_key, v: unknown) => {
      if (typeof v === "string" && v.length > 160) return `${v.slice(0, 120)}…(${v.length} chars)`;
      if (v && typeof v === "object" && (v as { type?: unknown }).type === "Buffer") return `<Buffer of ${((v as { data: unknown[] }).data ?? []).length}>`;
      return v;
    });
  } catch (err) {
    text = `(not printable: ${(err as Error).message})`;
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
