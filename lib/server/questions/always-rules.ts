import type { Question } from "../../protocol/question";
import type { QuestionStore } from "../store/questions/question-store";
import type { SqlTx } from "../store/sql-executor";
import { alwaysFeedback, alwaysRule, coveredBy, type ApprovalJudge } from "./approvals";
import type { AlsoChanged, QuestionSettlement } from "./settle";

/** "Allow always": an answer that adds a session rule and settles the pending approvals it covers. */
export interface AlwaysRules {
  /** What `question`'s answer changes besides it, in its transaction, or null when it is not "Allow always". */
  alongWith(question: Question, until: Date | null): ((tx: SqlTx) => Promise<AlsoChanged>) | null;
}

export function createAlwaysRules({
  judge,
  store,
  closing,
}: {
  judge: ApprovalJudge;
  store: Pick<QuestionStore, "pendingApprovalsIn" | "claim">;
  closing: QuestionSettlement["closing"];
}): AlwaysRules {
  /**
   * The session rule and every other pending approval of the session it covers, settled in the
   * answer's transaction (nothing half-applied); returns the ids it closed.
   */
  async function allowAlways(question: Question, until: Date | null, tx: SqlTx): Promise<AlsoChanged> {
    const rule = alwaysRule(judge, question.approval!, question.answer);
    const added = await judge.addRule(question.sessionId, rule, "always", tx, { by: question.closedByUser, until });
    const covered = coveredBy(judge, rule, await store.pendingApprovalsIn(tx, question.sessionId), question.id);
    const closedIds: string[] = [];
    const byRule = { ...closing("answered", "rule", "always", alwaysFeedback(rule)), closedByRule: added.id };
    // An approval that needs several people is not the person's alone to allow: a rule one of them made leaves it to their votes.
    for (const q of covered) if (!q.approvals && (await store.claim(q.id, byRule, tx))) closedIds.push(q.id);
    return { closedIds, committed: () => judge.announce(question.sessionId) };
  }

  return {
    alongWith: (question, until) => (question.approval && (question.answer === "always" || question.answer === "always_wider") ? (tx) => allowAlways(question, until, tx) : null),
  };
}
