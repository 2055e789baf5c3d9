import pg from "pg";
import { isFinalRunStatus } from "../../lib/protocol/entities";

/**
 * Watches a trial's PostgreSQL database from outside the nodes (several nodes share it, any may
 * die): every few dozen milliseconds it reads every run and every journal entry and remembers
 * what it saw. What it finds are the invariants no single REST answer shows:
 *  - a journal position (run, seq) written twice with different content (two nodes executing one
 *    run at once, or a replay that wrote where it should have read);
 *  - a run that ended and then changed again (ended twice, or came back to life);
 *  - a run whose `attempts` went down, or grew past what its waits and the trial's faults explain.
 */

interface EntrySeen {
  kind: string;
  name: string;
  digest: string;
  output: string | null;
  questionId: string | null;
  childRunId: string | null;
  createdAt: string;
}

interface RunSeen {
  status: string;
  attempts: number;
  parentRunId: string | null;
  functionName: string;
  leaseOwner: string | null;
  /** The first final status seen. */
  ended?: string;
}

const short = (id: string) => id.slice(0, 8);

export interface DbWatch {
  /** Reads once more now (the final look). */
  sample(): Promise<void>;
  /** How many active runs held a lease of `nodeId` at the last sample. */
  leasesOf(nodeId: string): number;
  /** Problems found so far, plus the attempts check given how many faults (node kills, Redis outages) the trial had. */
  problems(faults: number): string[];
  stop(): Promise<void>;
}

export async function watchDatabase(url: string, everyMs = 60): Promise<DbWatch> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // A failing query (the server busy) is not a finding; the next sample tries again.
  client.on("error", () => {});
  const entries = new Map<string, EntrySeen>();
  const runs = new Map<string, RunSeen>();
  const found: string[] = [];
  const note = (problem: string) => {
    if (!found.includes(problem)) found.push(problem);
  };
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();

  async function read(): Promise<void> {
    const [runRows, entryRows] = await Promise.all([
      client.query<{ id: string; status: string; attempts: number; parentRunId: string | null; functionName: string; leaseOwner: string | null }>(
        `SELECT "id", "status", "attempts", "parentRunId", "functionName", "leaseOwner" FROM "Run"`,
      ),
      client.query<{ runId: string; seq: number } & EntrySeen>(
        `SELECT "runId", "seq", "kind", "name", "digest", "output", "questionId", "childRunId", "createdAt"::text AS "createdAt" FROM "JournalEntry"`,
      ),
    ]);
    for (const r of runRows.rows) {
      const before = runs.get(r.id);
      const now: RunSeen = { status: r.status, attempts: r.attempts, parentRunId: r.parentRunId, functionName: r.functionName, leaseOwner: r.leaseOwner, ended: before?.ended };
      if (before && r.attempts < before.attempts) note(`run ${short(r.id)} (${r.functionName}): attempts went down from ${before.attempts} to ${r.attempts}`);
      if (before?.ended && r.status !== before.ended) note(`run ${short(r.id)} (${r.functionName}) ended ${before.ended}, then became ${r.status} (it ended twice or came back)`);
      if (!now.ended && isFinalRunStatus(r.status)) now.ended = r.status;
      runs.set(r.id, now);
    }
    for (const e of entryRows.rows) {
      const key = `${e.runId}:${e.seq}`;
      const { runId, seq, ...content } = e;
      const before = entries.get(key);
      if (!before) {
        entries.set(key, content);
        continue;
      }
      const changed = (Object.keys(content) as Array<keyof EntrySeen>).filter((k) => {
        // An open question or call gets its output when it closes; once set it never changes.
        if (k === "output") return before.output !== null && before.output !== content.output;
        return before[k] !== content[k];
      });
      if (changed.length > 0) {
        note(`run ${short(runId)} journal #${seq} was written twice with different content: ${changed.map((k) => `${k} ${JSON.stringify(before[k])} → ${JSON.stringify(content[k])}`).join(", ")}`);
      }
      entries.set(key, { ...before, output: content.output ?? before.output });
    }
  }

  const sample = () => (busy = busy.then(() => read().catch(() => {})));
  const loop = async () => {
    while (!stopped) {
      await sample();
      await new Promise((r) => setTimeout(r, everyMs));
    }
  };
  void loop();

  return {
    sample,
    leasesOf: (nodeId) => [...runs.values()].filter((r) => r.leaseOwner === nodeId && !r.ended).length,
    problems(faults) {
      const problems = [...found];
      const waits = new Map<string, number>();
      for (const [key, e] of entries) {
        if (e.kind !== "question" && e.kind !== "call") continue;
        const runId = key.slice(0, key.lastIndexOf(":"));
        waits.set(runId, (waits.get(runId) ?? 0) + 1);
      }
      for (const [id, r] of runs) {
        // Loaded once at its start, once more after each wait it parked in (at most), and after each fault (a takeover, a lost worker, a lease lost with Redis or the database) at most twice.
        const most = 1 + (waits.get(id) ?? 0) + 2 * faults;
        if (r.attempts < 1 || r.attempts > most)
          problems.push(`run ${short(id)} (${r.functionName}, ${r.status}) has attempts ${r.attempts}: expected 1..${most} (${waits.get(id) ?? 0} waits, ${faults} faults)`);
      }
      return problems;
    },
    async stop() {
      stopped = true;
      await busy;
      await client.end().catch(() => {});
    },
  };
}
