import { createHash } from "node:crypto";
import type { JournalRecord } from "../../lib/protocol/ipc";
import { canonicalJson } from "../../lib/protocol/plain-json";
import type { JsonValue } from "../../lib/protocol/question";
import { JournalDivergence } from "./errors";
import type { RunContext } from "./run-context";
import type { StepContext } from "./types";

/**
 * The run's journal: every operation (a step, a message, a question, a child call) takes the next
 * position; a run resumed by replay finds what it did before at the same position, and must do the
 * same there (its digest), or it diverges.
 */

export function digestOf(...parts: unknown[]): string {
  return createHash("sha256").update(canonicalJson(parts)).digest("hex").slice(0, 32);
}

/** A journal position taken by an operation of kind K, with what the journal recorded there (on replay). */
export interface Claim<K extends JournalRecord["kind"]> {
  seq: number;
  record: Extract<JournalRecord, { kind: K }> | undefined;
}

export interface Journal {
  /** Takes the next journal position; a recorded entry there must be the same operation (else JournalDivergence). */
  claim<K extends JournalRecord["kind"]>(kind: K, digest: string, label: string): Claim<K>;
  /** Runs a step at its claimed position (or returns its recorded output) and journals the result. */
  runStep<T>(seq: number, digest: string, name: string, record: { output: JsonValue } | undefined, fn: (ctx: StepContext) => Promise<T> | T): Promise<T>;
  /** `rt.step`: claims a position and runs the step there. */
  step<T>(name: string, fn: (ctx: StepContext) => Promise<T> | T): Promise<T>;
  /** Work that a park must wait for starts (a step, a tool's checks on disk) … */
  enterWork(): void;
  /** … and ends. */
  leaveWork(): void;
  /** Whether any such work is in flight. */
  busy(): boolean;
  /** The divergence replay found, if any. */
  divergence(): JournalDivergence | null;
}

export function createJournal(ctx: RunContext, records: JournalRecord[] = []): Journal {
  const { host, own } = ctx;
  const journal = new Map(records.map((r) => [r.seq, r]));
  let nextSeq = 0;
  let stepsInFlight = 0;
  let diverged: JournalDivergence | null = null;

  function claim<K extends JournalRecord["kind"]>(kind: K, digest: string, label: string): Claim<K> {
    ctx.checkLive();
    const seq = nextSeq++;
    const record = journal.get(seq);
    if (record && (record.kind !== kind || record.digest !== digest)) {
      diverged ??= own(new JournalDivergence(seq, `a ${record.kind}`, label));
      throw diverged;
    }
    return { seq, record: record as Extract<JournalRecord, { kind: K }> | undefined };
  }

  async function runStep<T>(seq: number, digest: string, name: string, record: { output: JsonValue } | undefined, fn: (ctx: StepContext) => Promise<T> | T): Promise<T> {
    if (record) return record.output as T;
    stepsInFlight++;
    try {
      const result = await fn({ idempotencyKey: `${host.runId}:${seq}` });
      // What replay returns is the JSON form: hand the same to the first run.
      const output = (result === undefined ? null : JSON.parse(JSON.stringify(result))) as JsonValue;
      ctx.send({ type: "step.record", runId: host.runId, seq, digest, name, output });
      return output as T;
    } finally {
      stepsInFlight--;
    }
  }

  return {
    claim,
    runStep,
    async step<T>(name: string, fn: (ctx: StepContext) => Promise<T> | T): Promise<T> {
      const digest = digestOf("step", name);
      const { seq, record } = claim("step", digest, `the step "${name}"`);
      return runStep(seq, digest, name, record, fn);
    },
    enterWork() {
      stepsInFlight++;
    },
    leaveWork() {
      stepsInFlight--;
    },
    busy: () => stepsInFlight > 0,
    divergence: () => diverged,
  };
}
