/** Reads the server's Prometheus metrics (GET /api/metrics): statement counts, and timed phases (p50 and p99 estimated from their histograms). */
import { authHeaders, type ServerProcess } from "../tests/helpers/server-process";

export type Metrics = { reads: number; writes: number; transactions: number; parked: number; phases: Map<string, { p50: number; p99: number; count: number }> };

const value = (text: string, series: string) => Number(text.match(new RegExp(`^${series.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m"))?.[1] ?? 0);

/** Each phase's histogram buckets (upper bound in seconds → observations at or under it), from one or more nodes' metrics added up. */
export function phaseBuckets(...texts: string[]): Map<string, Map<number, number>> {
  const phases = new Map<string, Map<number, number>>();
  for (const text of texts) {
    for (const [, le, phase, count] of text.matchAll(/^parley_phase_seconds_bucket\{le="([^"]+)",phase="([^"]+)"\} (\S+)$/gm)) {
      const buckets = phases.get(phase!) ?? new Map<number, number>();
      const bound = le === "+Inf" ? Infinity : Number(le);
      buckets.set(bound, (buckets.get(bound) ?? 0) + Number(count));
      phases.set(phase!, buckets);
    }
  }
  return phases;
}

/** The q-quantile of a histogram as Prometheus' histogram_quantile estimates it: linear within the bucket it falls in. */
export function histogramQuantile(q: number, buckets: Map<number, number>): number {
  const sorted = [...buckets].sort(([a], [b]) => a - b);
  const total = sorted.at(-1)?.[1] ?? 0;
  if (total === 0) return NaN;
  const rank = q * total;
  let [lower, below] = [0, 0];
  for (const [bound, count] of sorted) {
    if (count >= rank) return bound === Infinity ? lower : lower + ((bound - lower) * (rank - below)) / (count - below || 1);
    [lower, below] = [bound, count];
  }
  return lower;
}

export async function readMetrics(server: ServerProcess): Promise<Metrics> {
  const res = await fetch(`${server.url}/api/metrics`, { headers: authHeaders() });
  if (!res.ok) throw new Error(`/api/metrics: ${res.status}`);
  const text = await res.text();
  const phases = new Map<string, { p50: number; p99: number; count: number }>();
  for (const [phase, buckets] of phaseBuckets(text)) {
    phases.set(phase, { p50: histogramQuantile(0.5, buckets) * 1000, p99: histogramQuantile(0.99, buckets) * 1000, count: buckets.get(Infinity) ?? 0 });
  }
  return {
    reads: value(text, 'parley_db_queries_total{kind="read"}'),
    writes: value(text, 'parley_db_queries_total{kind="write"}'),
    transactions: value(text, "parley_db_transactions_total"),
    parked: value(text, "parley_runs_parked_total"),
    phases,
  };
}

/** Statements between two readings. */
export const spent = (a: Metrics, b: Metrics) => ({ reads: b.reads - a.reads, writes: b.writes - a.writes, transactions: b.transactions - a.transactions });
