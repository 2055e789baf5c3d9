/** Reads the server's Prometheus metrics (GET /api/metrics): statement counts and timed phases. */
import { authHeaders, type ServerProcess } from "../tests/helpers/server-process";

export type Metrics = { reads: number; writes: number; prisma: number; transactions: number; parked: number; phases: Map<string, { p50: number; p99: number; count: number }> };

const value = (text: string, series: string) => Number(text.match(new RegExp(`^${series.replace(/[{}"]/g, "\\$&")} (\\S+)$`, "m"))?.[1] ?? 0);

export async function readMetrics(server: ServerProcess): Promise<Metrics> {
  const res = await fetch(`${server.url}/api/metrics`, { headers: authHeaders() });
  if (!res.ok) throw new Error(`/api/metrics: ${res.status}`);
  const text = await res.text();
  const phases = new Map<string, { p50: number; p99: number; count: number }>();
  for (const [, phase] of text.matchAll(/^parley_phase_seconds_count\{phase="([^"]+)"\}/gm)) {
    const q = (quantile: string) => value(text, `parley_phase_seconds{quantile="${quantile}",phase="${phase}"}`) * 1000;
    phases.set(phase!, { p50: q("0.5"), p99: q("0.99"), count: value(text, `parley_phase_seconds_count{phase="${phase}"}`) });
  }
  return {
    reads: value(text, 'parley_db_queries_total{kind="read",lane="prisma"}') + value(text, 'parley_db_queries_total{kind="read",lane="direct"}'),
    writes: value(text, 'parley_db_queries_total{kind="write",lane="prisma"}') + value(text, 'parley_db_queries_total{kind="write",lane="direct"}'),
    prisma: value(text, 'parley_db_queries_total{kind="read",lane="prisma"}') + value(text, 'parley_db_queries_total{kind="write",lane="prisma"}'),
    transactions: value(text, "parley_db_transactions_total"),
    parked: value(text, "parley_runs_parked_total"),
    phases,
  };
}

/** Statements between two readings. */
export const spent = (a: Metrics, b: Metrics) => ({ reads: b.reads - a.reads, writes: b.writes - a.writes, prisma: b.prisma - a.prisma, transactions: b.transactions - a.transactions });
