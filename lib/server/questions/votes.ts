import { AppError } from "../../protocol/errors";
import { LOCAL_OWNER } from "../../protocol/access";
import type { Vote } from "../../protocol/teams";
import type { Closing, QuestionStore, ReplyTarget } from "../store/questions/question-store";
import type { SqlTx } from "../store/sql-executor";
import type { Closer } from "./question-service";

/** What a person's answer would close a question with. */
export interface Verdict {
  closing: Closing;
  status: "answered" | "declined";
}

/** The votes on an approval after one more: whether it decides the approval, and then how it closes. */
export type VoteCount = { decides: false; votes: Vote[] } | { decides: true; votes: Vote[]; closing: Closing };

/** Approvals that need several people: each person's vote counts once, and the one that makes the count decides. */
export interface ApprovalVotes {
  /** Counts `person`'s vote on the approval `target` holds (in `tx`, the question held). */
  cast(tx: SqlTx, target: ReplyTarget, verdict: Verdict, voter: { person?: string; by: Closer }): Promise<VoteCount>;
}

/**
 * The question is held first, so concurrent voters count one after another and exactly one of
 * them, the one whose vote makes the count, settles it. A person counts once, whichever tab or
 * surface they vote from.
 */
export function createApprovalVotes({ store, now }: { store: Pick<QuestionStore, "vote">; now: () => Date }): ApprovalVotes {
  return {
    async cast(tx, target, verdict, { person, by }) {
      const approvals = target.question.approvals!;
      if (verdict.status === "answered" && verdict.closing.answer !== "once") {
        throw new AppError("invalid_answer", `This approval needs ${approvals.required} people: it can only be allowed once, not always.`);
      }
      const decision = verdict.status === "answered" ? "allow" : "reject";
      const votes = await store.vote(tx, {
        questionId: target.question.id,
        userId: person ?? LOCAL_OWNER,
        decision,
        feedback: verdict.closing.feedback,
        surface: by,
        // Once held: when it counted, not when it came.
        createdAt: now(),
      });
      const count = (d: Vote["decision"]) => votes.filter((v) => v.decision === d).length;
      const decides = verdict.status === "answered" ? count("allow") >= approvals.required : count("reject") >= approvals.rejections;
      const mine = votes.find((v) => v.user === (person ?? LOCAL_OWNER))!;
      // The person's first vote stands: a second one that differs decides nothing.
      if (!decides || mine.decision !== decision) return { decides: false, votes };
      // Closed when the vote that decides counted (it is this one: a vote that adds nothing decides nothing).
      return { decides: true, votes, closing: { ...verdict.closing, closedAt: new Date(mine.at) } };
    },
  };
}
