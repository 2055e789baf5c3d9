import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** The stretches of the question loop timed on the server (seconds, in `parley_phase_seconds`). */
export type Phase =
  /** A reply's claim: the transaction that closes the question and records the receipt. */
  | "reply.claim"
  /** A reply received → its retraction handed to Socket.IO. */
  | "reply.broadcast"
  /** A reply received → the answer sent to the live worker over IPC (or the parked run woken). */
  | "reply.deliver"
  /** A run's load from the database (run row and journal) before it is sent to a worker. */
  | "run.load"
  /** A run's wait for a worker (pool acquire). */
  | "run.acquire"
  /** A run handed to its worker → its first question (or message) back: the worker's own time. */
  | "worker.first"
  /** A run start request → its run stored. */
  | "run.create"
  /** A question the worker asked → stored and shown. */
  | "question.create";

export type QueryKind = "read" | "write";

/** From a claim's half millisecond to a model's first words: seconds. */
const PHASE_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Process metrics in Prometheus' format (GET /api/metrics): database statements by kind, the
 * timed phases of the question loop, and runs parked. Timings are histograms (counts per bucket,
 * a sum and a count), which add up across nodes: a percentile of all of them comes from the sum.
 * The benchmarks read them to print queries per reply and per run start beside their figures.
 */
export function createMetrics({ processMetrics = false }: { processMetrics?: boolean } = {}) {
  const registry = new Registry();
  // The process's CPU, memory, heap and event-loop lag: once per server (they watch process-wide hooks).
  if (processMetrics) collectDefaultMetrics({ register: registry });
  const queries = new Counter({
    name: "parley_db_queries_total",
    help: "Database statements sent, by kind (transaction control included as writes).",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const transactions = new Counter({ name: "parley_db_transactions_total", help: "Database transactions begun.", registers: [registry] });
  const phases = new Histogram({
    name: "parley_phase_seconds",
    help: "Time spent in each timed phase of the question loop.",
    labelNames: ["phase"] as const,
    buckets: PHASE_BUCKETS,
    registers: [registry],
  });
  const parked = new Counter({ name: "parley_runs_parked_total", help: "Runs that let go of their worker to wait for an answer.", registers: [registry] });
  const takeovers = new Counter({
    name: "parley_runs_taken_over_total",
    help: "Runs this node woke because no live node executed them (their node's lease lapsed, or it died after waking them); the lease decides which node wins.",
    registers: [registry],
  });
  const clusterIn = new Counter({ name: "parley_cluster_messages_total", help: "Messages this node received from other nodes, by type.", labelNames: ["type"] as const, registers: [registry] });
  let leasesHeld: () => number = () => 0;
  new Gauge({
    name: "parley_run_leases_held",
    help: "Runs this node holds a lease on (executes), several nodes on one database.",
    registers: [registry],
    collect() {
      this.set(leasesHeld());
    },
  });
  const series = { read: queries.labels("read"), write: queries.labels("write") };

  return {
    registry,
    query(kind: QueryKind): void {
      series[kind].inc();
    },
    transaction(): void {
      transactions.inc();
    },
    runParked(): void {
      parked.inc();
    },
    runTakenOver(): void {
      takeovers.inc();
    },
    clusterMessage(type: string): void {
      clusterIn.inc({ type });
    },
    /** Where the lease gauge reads from. */
    watchLeases(held: () => number): void {
      leasesHeld = held;
    },
    /** Starts timing `phase`; the returned function ends it. */
    time(phase: Phase): () => void {
      const started = performance.now();
      return () => phases.observe({ phase }, (performance.now() - started) / 1000);
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
