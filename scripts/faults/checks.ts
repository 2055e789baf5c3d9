import { isDeepStrictEqual } from "node:util";
import type { Question } from "../../lib/protocol/question";
import { answerFor, replyTo, RUN_KINDS, type RunDetailView, type RunTrace } from "./flow";
import { pause, type Api } from "./http";
import { isFinalRunStatus } from "../../lib/protocol/entities";
import { treeBelow } from "../../lib/server/runs/run-tree";

/**
 * What must hold after a SIGKILL and a restart on the same database. Each check returns the
 * problems it found as sentences; an empty list means it held.
 */

interface RunRow {
  id: string;
  status: string;
  functionName: string;
  parentRunId: string | null;
}

const short = (id: string) => id.slice(0, 8);

/** Problems with owners: a pending question of an ended run, an active run that nothing will move on. */
async function ownershipProblems(api: Api, sessionId: string): Promise<string[]> {
  const [runs, pending, health] = await Promise.all([
    api.get<RunRow[]>(`/api/sessions/${sessionId}/runs`),
    api.get<Question[]>(`/api/questions?session_id=${sessionId}`),
    api.get<{ liveRuns: number }>("/api/health"),
  ]);
  const problems: string[] = [];
  const byId = new Map(runs.map((r) => [r.id, r]));
  for (const q of pending) {
    const owner = byId.get(q.runId);
    if (!owner || isFinalRunStatus(owner.status)) problems.push(`question "${q.prompt}" (${short(q.id)}) is pending but its run ${short(q.runId)} is ${owner?.status ?? "missing"}`);
  }
  const waitedOn = new Set(pending.map((q) => q.runId));
  for (const run of runs) {
    if (isFinalRunStatus(run.status)) continue;
    const waiting = [...treeBelow(run.id, runs)].some((id) => waitedOn.has(id));
    if (!waiting) problems.push(`run ${short(run.id)} (${run.functionName}) is ${run.status} with no pending question in its tree (server reports ${health.liveRuns} live runs)`);
  }
  return problems;
}

/**
 * Left alone after the restart, every run must settle: end, or wait on a pending question of its
 * own tree (the test functions ask or finish within moments of being live). Nothing may stay
 * `running`/`waiting_input` with no one to move it, and no question may stay pending for a run that ended.
 */
export async function checkSettles(api: Api, sessionId: string, settleMs: number): Promise<string[]> {
  const until = Date.now() + settleMs;
  for (;;) {
    const problems = await ownershipProblems(api, sessionId);
    if (problems.length === 0) return [];
    if (Date.now() > until) return problems.map((p) => `after ${settleMs} ms left alone: ${p}`);
    await pause(100);
  }
}

/** Runs whose start was acknowledged exist; a reply acknowledged as answered is the question's answer. */
export async function checkAcknowledged(api: Api, traces: RunTrace[]): Promise<string[]> {
  const problems: string[] = [];
  for (const t of traces) {
    if (t.startReceipt) {
      const res = await api.probe(`/api/runs/${t.runId}`);
      if (res.status !== 200) problems.push(`run #${t.k}: its start was acknowledged (run ${short(t.runId!)}) but GET /api/runs answers ${res.status}`);
    }
    for (const r of t.replies) {
      if (!r.receipt) continue;
      if (r.receipt.outcome !== "answered") {
        problems.push(`run #${t.k}: the only reply to "${r.prompt}" got ${r.receipt.outcome}, not answered`);
        continue;
      }
      const q = await api.get<Question>(`/api/questions/${r.questionId}`);
      if (q.status !== "answered" || !isDeepStrictEqual(q.answer, r.value)) {
        problems.push(`run #${t.k}: acknowledged answer ${JSON.stringify(r.value)} to "${r.prompt}" was lost: the question is ${q.status} with ${JSON.stringify(q.answer)}`);
      }
    }
  }
  return problems;
}

/**
 * Every command repeated with its commandId after the restart: an acknowledged one returns the
 * same receipt; one cut off by the kill either had applied (its receipt now) or applies now —
 * either way each start names one run and each reply ends as that question's answer.
 * Fills in `runId` for starts the kill cut off.
 */
export async function checkTwins(api: Api, sessionId: string, traces: RunTrace[]): Promise<string[]> {
  const problems: string[] = [];
  for (const t of traces) {
    const { fn, input } = RUN_KINDS[t.kind];
    const again = await api.send(`/api/sessions/${sessionId}/runs`, { function: fn, input, commandId: t.startCommandId });
    if (again.status !== 201) {
      problems.push(`run #${t.k}: repeating its start answered ${again.status}: ${JSON.stringify(again.body)}`);
      continue;
    }
    if (t.startReceipt && (!isDeepStrictEqual(again.body.receipt, t.startReceipt) || again.body.id !== t.runId)) {
      problems.push(`run #${t.k}: repeating its start gave ${JSON.stringify(again.body.receipt)}, first receipt was ${JSON.stringify(t.startReceipt)}`);
    }
    t.runId = again.body.id;

    for (const r of t.replies) {
      const twin = await api.send(`/api/questions/${r.questionId}/reply`, { value: r.value, commandId: r.commandId, digest: r.digest });
      if (twin.status !== 200) {
        problems.push(`run #${t.k}: repeating the reply to "${r.prompt}" answered ${twin.status}: ${JSON.stringify(twin.body)}`);
      } else if (r.receipt ? !isDeepStrictEqual(twin.body, r.receipt) : twin.body.outcome !== "answered" || !isDeepStrictEqual(twin.body.question.answer, r.value)) {
        problems.push(
          `run #${t.k}: repeating the reply to "${r.prompt}" gave ${twin.body.outcome} (${JSON.stringify(twin.body.question?.answer)}); ${r.receipt ? `first receipt: ${r.receipt.outcome}` : "it was cut off by the kill"}`,
        );
      }
    }
    if (t.resumeReceipt) {
      const twin = await api.send(`/api/runs/${t.runId}/resume`, { commandId: t.resumeCommandId });
      if (twin.status !== 200 || !isDeepStrictEqual(twin.body, t.resumeReceipt)) {
        problems.push(`run #${t.k}: repeating its resume gave ${twin.status} ${JSON.stringify(twin.body)}, first receipt was ${JSON.stringify(t.resumeReceipt)}`);
      }
    }
    // A stop that went out: repeated, it gives its first receipt, or (cut off by a kill) one that stopped the run or found it ended.
    if (t.stop?.sent) {
      const twin = await api.send(`/api/runs/${t.runId}/stop`, { commandId: t.stop.commandId });
      if (twin.status !== 200) {
        problems.push(`run #${t.k}: repeating its stop answered ${twin.status}: ${JSON.stringify(twin.body)}`);
      } else if (t.stop.receipt ? !isDeepStrictEqual(twin.body.receipt, t.stop.receipt) : !["stopped", "finished_first"].includes(twin.body.receipt?.outcome)) {
        problems.push(
          `run #${t.k}: repeating its stop gave ${JSON.stringify(twin.body.receipt)}; ${t.stop.receipt ? `first receipt: ${JSON.stringify(t.stop.receipt)}` : "it was cut off by the kill"}`,
        );
      } else if (!t.stop.receipt) {
        t.stop.receipt = twin.body.receipt;
      }
    }
  }
  const runs = await api.get<RunRow[]>(`/api/sessions/${sessionId}/runs`);
  const roots = runs.filter((r) => r.parentRunId === null);
  if (roots.length !== traces.length) problems.push(`${traces.length} starts made ${roots.length} root runs`);
  return problems;
}

/** Answers whatever is still pending (new commands) until every run has ended. */
export async function finishAll(api: Api, sessionId: string, tag: string, pick: () => number, timeoutMs: number): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  const answered = new Set<string>();
  for (;;) {
    const runs = await api.get<RunRow[]>(`/api/sessions/${sessionId}/runs`);
    const open = runs.filter((r) => !isFinalRunStatus(r.status));
    if (open.length === 0) return [];
    for (const q of await api.get<Question[]>(`/api/questions?session_id=${sessionId}`)) {
      if (answered.has(q.id)) continue;
      answered.add(q.id);
      const { status, body } = await replyTo(api, q, answerFor(q, tag, pick), `${tag}-finish-${answered.size}`);
      if (status !== 200 || body.outcome !== "answered") return [`answering "${q.prompt}" after the restart gave ${status} ${JSON.stringify(body)}`];
    }
    if (Date.now() > until) return open.map((r) => `run ${short(r.id)} (${r.functionName}) still ${r.status} ${timeoutMs} ms after the restart`);
    await pause(50);
  }
}

/** Every run succeeded with the answers its questions hold; each question was answered once and a replayed step was not redone. */
export async function checkOutcomes(api: Api, sessionId: string, traces: RunTrace[]): Promise<string[]> {
  const problems: string[] = [];
  const [runs, snapshot] = await Promise.all([
    api.get<RunRow[]>(`/api/sessions/${sessionId}/runs`),
    api.get<{ messages: Array<{ runId: string | null; text: string }> }>(`/api/sessions/${sessionId}`),
  ]);
  const details = new Map<string, RunDetailView>();
  for (const r of runs) details.set(r.id, await api.get<RunDetailView>(`/api/runs/${r.id}`));
  const questionOf = async (runId: string, prompt?: string) => {
    const entries = details.get(runId)!.journal.filter((e) => e.kind === "question" && e.questionId);
    const ids = new Set(entries.map((e) => e.questionId!));
    if (ids.size !== entries.length) problems.push(`run ${short(runId)}: a question appears twice in its journal`);
    const questions = await Promise.all([...ids].map((id) => api.get<Question>(`/api/questions/${id}`)));
    return prompt === undefined ? questions : questions.filter((q) => q.prompt === prompt);
  };

  // Trees whose root a stop ended: cancelled all through, their open questions cancelled with them. A stop
  // receipted as stopped ended it; one that went out to a node that died after it cancelled the run's
  // questions ended it too (the replay ends it cancelled), though its repeat finds the run ended.
  const stopped = new Set<string>();
  for (const t of traces) {
    const root = t.runId ? details.get(t.runId) : undefined;
    if (root && t.stop?.sent && (t.stop.receipt?.outcome === "stopped" || root.status === "cancelled")) for (const id of treeBelow(root.id, runs)) stopped.add(id);
  }
  for (const run of details.values()) {
    if (stopped.has(run.id)) {
      // The root ends cancelled; a child may have ended on its own before the stop reached it.
      const allowed = run.parentRunId === null ? ["cancelled"] : ["cancelled", "succeeded"];
      if (!allowed.includes(run.status)) problems.push(`run ${short(run.id)} (${run.functionName}) ended ${run.status}: ${run.error}, though a stop of its tree ended it`);
      for (const q of await questionOf(run.id)) {
        if (q.status === "pending") problems.push(`question "${q.prompt}" of stopped run ${short(run.id)} is still pending`);
      }
      continue;
    }
    if (run.status !== "succeeded") problems.push(`run ${short(run.id)} (${run.functionName}) ended ${run.status}: ${run.error}`);
    for (const q of await questionOf(run.id)) {
      if (q.status !== "answered") problems.push(`question "${q.prompt}" of run ${short(run.id)} ended ${q.status}, never answered`);
    }
  }
  for (const t of traces) {
    const run = details.get(t.runId!);
    if (!run || run.status !== "succeeded" || stopped.has(run.id)) continue;
    if (t.kind === "journal") {
      const [q] = await questionOf(run.id, "Which color?");
      if (!q || run.result?.color !== q.answer) problems.push(`run #${t.k}: result color ${JSON.stringify(run.result?.color)} is not the answer ${JSON.stringify(q?.answer)}`);
      const tokens = snapshot.messages.filter((m) => m.runId === run.id && m.text.startsWith("Token "));
      if (tokens.length !== 1 || tokens[0]!.text !== `Token ${run.result?.token}`) {
        problems.push(`run #${t.k}: its step's token ${run.result?.token} vs messages ${JSON.stringify(tokens.map((m) => m.text))} (a replay redid a journaled step or message)`);
      }
    } else if (t.kind === "parent") {
      for (const [key, prompt] of [
        ["a", "Child A?"],
        ["b", "Child B?"],
      ] as const) {
        const childQuestions = (await Promise.all(runs.filter((r) => r.parentRunId === run.id).map((c) => questionOf(c.id, prompt)))).flat();
        if (childQuestions.length !== 1) {
          problems.push(`run #${t.k}: ${childQuestions.length} questions "${prompt}" in its children`);
          continue;
        }
        if (run.result?.[key]?.value !== childQuestions[0]!.answer) {
          problems.push(`run #${t.k}: child ${key} returned ${JSON.stringify(run.result?.[key])}, its question holds ${JSON.stringify(childQuestions[0]!.answer)}`);
        }
      }
    } else if (t.kind === "many") {
      if (!isDeepStrictEqual(run.result, { answers: ["ok", "ok"] })) problems.push(`run #${t.k}: result ${JSON.stringify(run.result)}`);
    }
    // An answer acknowledged before the kill never changed afterwards.
    for (const r of t.replies) {
      if (r.receipt?.outcome !== "answered") continue;
      const q = await api.get<Question>(`/api/questions/${r.questionId}`);
      if (!isDeepStrictEqual(q.answer, r.value)) problems.push(`run #${t.k}: "${r.prompt}" was acknowledged as ${JSON.stringify(r.value)} but ended ${JSON.stringify(q.answer)}`);
    }
  }
  return problems;
}

/** At the end nothing is left live or pending. */
export async function checkIdle(api: Api, timeoutMs: number): Promise<string[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const health = await api.get<{ liveRuns: number; pendingQuestions: number }>("/api/health");
    if (health.liveRuns === 0 && health.pendingQuestions === 0) return [];
    if (Date.now() > until) return [`${timeoutMs} ms after every run ended the server still reports ${health.liveRuns} live runs and ${health.pendingQuestions} pending questions`];
    await pause(100);
  }
}

/**
 * Everything a trial checks once its faults are over: the runs settle on their own, no
 * acknowledged answer was lost, twins got their first receipts, and once the rest is answered
 * every run ends as it should, each server (`idle`, named) left with nothing live or pending.
 */
export async function checkAfterFaults({
  api,
  sessionId,
  traces,
  tag,
  pick,
  settleMs,
  finishMs,
  idle,
}: {
  api: Api;
  sessionId: string;
  traces: RunTrace[];
  tag: string;
  pick: () => number;
  settleMs: number;
  finishMs: number;
  idle: Array<{ name?: string; api: Api }>;
}): Promise<string[]> {
  const unsettled = await checkSettles(api, sessionId, settleMs);
  const problems = [...unsettled, ...(await checkAcknowledged(api, traces))];
  // Runs that nothing moves on cannot be finished: the rest would only repeat that.
  if (unsettled.length > 0) return problems;
  problems.push(...(await checkTwins(api, sessionId, traces)));
  const finished = await finishAll(api, sessionId, tag, pick, finishMs);
  problems.push(...finished);
  if (finished.length > 0) return problems;
  problems.push(...(await checkOutcomes(api, sessionId, traces)));
  for (const server of idle) problems.push(...(await checkIdle(server.api, 15_000)).map((p) => (server.name ? `${server.name}: ${p}` : p)));
  return problems;
}
