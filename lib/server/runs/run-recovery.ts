import type { QuestionService } from "../questions/question-service";
import type { RunStore } from "./run-store";

/**
 * At start-up: pending questions stay pending (their expiry timers are rebuilt). Runs that were
 * executing when the previous process died are resumed by replay; waiting runs stay parked unless
 * what they waited for has already arrived.
 */
export async function recoverRuns({
  store,
  questions,
  activate,
}: {
  store: RunStore;
  questions: Pick<QuestionService, "rescheduleExpiries" | "listPending">;
  activate: (runId: string) => void;
}): Promise<{ resumed: number; parked: number; questions: number }> {
  await questions.rescheduleExpiries();
  const active = await store.listActive();
  let resumed = 0;
  for (const run of active) {
    if (run.status === "running" || !(await store.isBlocked(run.id))) {
      resumed++;
      activate(run.id);
    }
  }
  return { resumed, parked: active.length - resumed, questions: (await questions.listPending()).length };
}
