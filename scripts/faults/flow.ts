import type { Receipt, ReplyReceipt, StopReceipt } from "../../lib/protocol/commands";
import type { Question } from "../../lib/protocol/question";
import { pause, type Api } from "./http";
import { isFinalRunStatus } from "../../lib/protocol/entities";

/**
 * The flow a trial drives for each of its runs: start → question asked → answer → resume →
 * finished, recording every acknowledgement it got (a receipt is a promise the server made).
 */

/** Test agent functions (PARLEY_TEST_FUNCTIONS=1) and what each asks. */
export const RUN_KINDS = {
  /** A journaled step and message, then one question with options. */
  journal: { fn: "test.journal", input: {} },
  /** Two child runs asking at once: their questions belong to the children. */
  parent: { fn: "test.parent", input: {} },
  /** Two questions one after the other. */
  many: { fn: "test.many", input: { count: 2 } },
} as const;
export type RunKind = keyof typeof RUN_KINDS;

export type Step = "started" | "asked" | "answered" | "resumed" | "stopped" | "finished";
export const KILL_STEPS: Step[] = ["started", "asked", "answered", "resumed"];

export interface ReplyAttempt {
  questionId: string;
  runId: string;
  prompt: string;
  digest: string;
  value: string;
  commandId: string;
  /** Present when the server acknowledged the reply before the kill. */
  receipt?: ReplyReceipt;
}

export interface RunTrace {
  k: number;
  kind: RunKind;
  startCommandId: string;
  runId?: string;
  startReceipt?: Receipt;
  steps: Step[];
  replies: ReplyAttempt[];
  resumeCommandId: string;
  resumeReceipt?: Receipt;
  /** Stop the run (POST /stop with this commandId) once its first question was asked, or answered and the run resumed. */
  stop?: { after: "asked" | "answered"; commandId: string; sent?: boolean; receipt?: StopReceipt };
  /** A failure before the kill (an error answer or a timeout while the server was up). */
  error?: string;
}

export interface RunDetailView {
  id: string;
  status: string;
  functionName: string;
  parentRunId: string | null;
  rootRunId: string;
  result: any;
  error: string | null;
  attempts: number;
  journal: Array<{ seq: number; kind: string; name: string; questionId: string | null; childRunId: string | null; output: unknown }>;
  pendingQuestions: Question[];
}

/** The answer this flow gives to a question: a fixed option, or text naming the trial, run and question. */
export function answerFor(question: Pick<Question, "options" | "prompt">, tag: string, pick: () => number): string {
  if (question.options.length > 0) return question.options[Math.floor(pick() * question.options.length)]!;
  return `${tag} ${question.prompt}`;
}

export async function replyTo(api: Api, question: Question, value: string, commandId: string): Promise<{ attempt: ReplyAttempt; status: number; body: any }> {
  const attempt: ReplyAttempt = { questionId: question.id, runId: question.runId, prompt: question.prompt, digest: question.targetDigest, value, commandId };
  const res = await api.send(`/api/questions/${question.id}/reply`, { value, commandId, digest: question.targetDigest });
  return { attempt, status: res.status, body: res.body };
}

/** POST /stop with the trace's commandId; the stop answers once the run has ended. */
async function stopRun(api: Api, trace: RunTrace): Promise<void> {
  trace.stop!.sent = true;
  const stopped = await api.post<{ receipt: StopReceipt }>(`/api/runs/${trace.runId}/stop`, { commandId: trace.stop!.commandId });
  trace.stop!.receipt = stopped.receipt;
}

/**
 * Drives one run until it finishes. Every acknowledged step is pushed to `trace` at once (the
 * kill may come at any moment) and announced through `onStep`. Throws when aborted.
 */
export async function driveRun({
  api,
  sessionId,
  trace,
  tag,
  pick,
  signal,
  onStep,
  pollMs = 40,
  stepTimeoutMs = 60_000,
}: {
  api: Api;
  sessionId: string;
  trace: RunTrace;
  tag: string;
  pick: () => number;
  signal: AbortSignal;
  onStep: (trace: RunTrace, step: Step) => void;
  pollMs?: number;
  stepTimeoutMs?: number;
}): Promise<void> {
  const mark = (step: Step) => {
    trace.steps.push(step);
    onStep(trace, step);
  };
  const { fn, input } = RUN_KINDS[trace.kind];
  const started = await api.post(`/api/sessions/${sessionId}/runs`, { function: fn, input, commandId: trace.startCommandId });
  trace.runId = started.id;
  trace.startReceipt = started.receipt;
  mark("started");

  const replied = new Set<string>();
  let resumed = false;
  let deadline = Date.now() + stepTimeoutMs;
  for (;;) {
    const run = await api.get<RunDetailView>(`/api/runs/${trace.runId}`);
    if (isFinalRunStatus(run.status)) {
      mark("finished");
      return;
    }
    const fresh = run.pendingQuestions.filter((q) => !replied.has(q.id));
    // test.parent asks twice at once: wait for both, so the answers go out together.
    const expected = trace.kind === "parent" && replied.size === 0 ? 2 : 1;
    if (fresh.length >= expected) {
      mark("asked");
      if (trace.stop?.after === "asked" && !trace.stop.receipt) {
        await stopRun(api, trace);
        mark("stopped");
        continue;
      }
      for (const question of fresh) {
        replied.add(question.id);
        const { attempt, status, body } = await replyTo(api, question, answerFor(question, tag, pick), `${tag}-reply-${trace.replies.length}`);
        trace.replies.push(attempt);
        if (status !== 200) throw new Error(`reply to "${question.prompt}" answered ${status}: ${JSON.stringify(body)}`);
        attempt.receipt = body;
        mark("answered");
      }
      if (!resumed) {
        resumed = true;
        trace.resumeReceipt = await api.post(`/api/runs/${trace.runId}/resume`, { commandId: trace.resumeCommandId });
        mark("resumed");
      }
      if (trace.stop?.after === "answered" && !trace.stop.receipt) {
        await stopRun(api, trace);
        mark("stopped");
        continue;
      }
      deadline = Date.now() + stepTimeoutMs;
    }
    if (Date.now() > deadline) throw new Error(`run ${trace.runId} made no progress for ${stepTimeoutMs} ms (status ${run.status})`);
    await pause(pollMs, signal);
  }
}
