import { personLabel } from "./audit";
import { defaultDisplayName, type NameOf } from "./display-names";
import type { Question } from "./question";
import { mayAnswer, waitingFor, type Vote } from "./teams";

/**
 * A pending question's card as the person looking at it sees it (the browser's card and the
 * terminal's prompt alike): whether they answer it, have voted on it, or wait for others, and the
 * words that say so ("Waiting for alice or bob", "1 of 2 approved — bob", "You approved · waiting
 * for 1 more"). Written once here; both clients draw these strings.
 */

type TeamQuestion = Pick<Question, "answerers" | "escalate" | "escalated" | "approvals" | "votes">;

/**
 * `answer`: the viewer may answer; `voted`: an approval of several they already voted on (a
 * second vote would change nothing); `watch`: it waits for other people; `unknown`: it names
 * people and who is viewing is not known yet.
 */
export type CardMode = "answer" | "voted" | "watch" | "unknown";

/** "alice", "alice or bob", "alice, bob or carol" (`and` likewise). */
export function listWords(names: string[], last: "or" | "and"): string {
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} ${last} ${names.at(-1)}`;
}

/** Whether the question is an approval that needs several people's votes (allowed once at most, never always). */
export const needsVotes = (q: Pick<Question, "approvals">): boolean => q.approvals !== null;

/** The viewer's own vote on an approval of several, if any. */
export const voteOf = (q: Pick<Question, "votes">, me: string): Vote | null => q.votes.find((v) => v.user === me) ?? null;

const votersOf = (q: Pick<Question, "votes">, decision: Vote["decision"]) => q.votes.filter((v) => v.decision === decision).map((v) => v.user);

/** What the viewer (`null`: not known yet) can do with this pending question. */
export function cardMode(q: TeamQuestion, me: string | null): CardMode {
  if (me === null) return q.answerers === null && q.approvals === null ? "answer" : "unknown";
  if (!mayAnswer(q, me)) return "watch";
  return q.approvals && voteOf(q, me) ? "voted" : "answer";
}

/** "Waiting for alice or bob": who may still answer, never the viewer; null when nobody in particular (any member may). */
export function waitingLine(q: TeamQuestion, me: string | null, nameOf: NameOf = defaultDisplayName): string | null {
  const named = waitingFor(q);
  if (named === null) return null;
  // An approval's voters have had their say: it waits for the others.
  const voted = new Set(q.approvals ? q.votes.map((v) => v.user) : []);
  const names = named.filter((n) => n !== me && !voted.has(n));
  return names.length > 0 ? `Waiting for ${listWords(names.map(nameOf), "or")}` : null;
}

/** "1 of 2 approved — bob" (every approver named, the viewer too); null for a question that needs no votes. */
export function approvalCountLine(q: Pick<Question, "approvals" | "votes">, nameOf: NameOf = defaultDisplayName): string | null {
  if (!q.approvals) return null;
  const allowed = votersOf(q, "allow");
  return `${allowed.length} of ${q.approvals.required} approved${allowed.length > 0 ? ` — ${allowed.map(nameOf).join(", ")}` : ""}`;
}

/** "1 of 2 rejected — carol" when it takes several rejections and someone rejected; null otherwise (one rejection would have ended it). */
export function rejectionCountLine(q: Pick<Question, "approvals" | "votes">, nameOf: NameOf = defaultDisplayName): string | null {
  if (!q.approvals || q.approvals.rejections <= 1) return null;
  const rejected = votersOf(q, "reject");
  return rejected.length > 0 ? `${rejected.length} of ${q.approvals.rejections} rejected — ${rejected.map(nameOf).join(", ")}` : null;
}

/** "You approved · waiting for 1 more" once the viewer voted; null before. */
export function myVoteLine(q: Pick<Question, "approvals" | "votes">, me: string | null): string | null {
  const mine = q.approvals && me !== null ? voteOf(q, me) : null;
  if (!q.approvals || !mine) return null;
  const allow = mine.decision === "allow";
  const needed = allow ? q.approvals.required : q.approvals.rejections;
  const more = Math.max(1, needed - votersOf(q, mine.decision).length);
  return `${allow ? "You approved" : "You rejected"} · waiting for ${more} more`;
}

/** The lines a pending card shows about its people, in order: the count, the rejections, the viewer's vote, who it waits for. */
export function teamStatus(q: TeamQuestion, me: string | null, nameOf: NameOf = defaultDisplayName): { count: string | null; rejections: string | null; mine: string | null; waiting: string | null } {
  const mode = cardMode(q, me);
  return {
    count: approvalCountLine(q, nameOf),
    rejections: rejectionCountLine(q, nameOf),
    mine: myVoteLine(q, me),
    // Only a card the viewer cannot answer says whom it waits for (a voter's says how many more).
    waiting: mode === "watch" ? waitingLine(q, me, nameOf) : null,
  };
}

/** A settled approval of several: "Approved by bob and carol" (or "Rejected by …"; the reader, when given, is "you"), from its votes; null for any other question. */
export function decidedByLine(q: Pick<Question, "approvals" | "votes" | "status">, viewer: string | null = null, nameOf: NameOf = defaultDisplayName): string | null {
  if (!q.approvals || (q.status !== "answered" && q.status !== "declined")) return null;
  const allowed = q.status === "answered";
  const names = votersOf(q, allowed ? "allow" : "reject").map((n) => personLabel(n, { viewer, nameOf }));
  return names.length > 0 ? `${allowed ? "Approved" : "Rejected"} by ${listWords(names, "and")}` : null;
}
