import { describe, expect, it } from "vitest";
import { anApproval, aQuestion } from "../../tests/helpers/questions";
import type { Question } from "./question";
import { approvalCountLine, cardMode, decidedByLine, listWords, myVoteLine, rejectionCountLine, teamStatus, waitingLine } from "./team-card";
import type { Vote } from "./teams";

const vote = (user: string, decision: Vote["decision"] = "allow"): Vote => ({ user, decision, at: "2026-01-01T00:01:00.000Z", feedback: null });
/** A 2-of-3 approval by bob, carol and dave. */
const twoOfThree = (votes: Vote[] = [], over: Partial<Question> = {}) => anApproval({}, { answerers: ["bob", "carol", "dave"], approvals: { required: 2, from: null, rejections: 1 }, votes, ...over });

describe("who a card is for", () => {
  it("a question that names nobody is anyone's to answer, even before the viewer is known", () => {
    expect(cardMode(aQuestion(), null)).toBe("answer");
    expect(cardMode(aQuestion(), "bob")).toBe("answer");
  });

  it("a question that names people waits for the viewer to be known, then is theirs or read-only", () => {
    const q = aQuestion({ answerers: ["carol"] });
    expect(cardMode(q, null)).toBe("unknown");
    expect(cardMode(q, "carol")).toBe("answer");
    expect(cardMode(q, "bob")).toBe("watch");
    // An escalation that has happened adds its people; one still to come does not.
    const escalating = aQuestion({
      answerers: ["carol"],
      escalate: [
        { afterMs: 60_000, to: ["bob"] },
        { afterMs: 120_000, to: ["dave"] },
      ],
      escalated: 1,
    });
    expect(cardMode(escalating, "bob")).toBe("answer");
    expect(cardMode(escalating, "dave")).toBe("watch");
  });

  it("an approver who voted has had their say; one who did not still answers; a person outside `from` watches", () => {
    expect(cardMode(twoOfThree([vote("bob")]), "bob")).toBe("voted");
    expect(cardMode(twoOfThree([vote("bob")]), "carol")).toBe("answer");
    expect(cardMode(twoOfThree([vote("bob")]), "erin")).toBe("watch");
    expect(cardMode(anApproval({}, { approvals: { required: 2, from: ["bob", "carol"], rejections: 1 } }), "local")).toBe("watch");
  });
});

describe("a card's words about its people", () => {
  it("names whom it waits for, never the viewer", () => {
    expect(listWords(["alice"], "or")).toBe("alice");
    expect(listWords(["alice", "bob"], "or")).toBe("alice or bob");
    expect(listWords(["alice", "bob", "carol"], "and")).toBe("alice, bob and carol");
    expect(waitingLine(aQuestion({ answerers: ["alice"] }), "bob")).toBe("Waiting for alice");
    expect(waitingLine(aQuestion({ answerers: ["alice", "bob"] }), "carol")).toBe("Waiting for alice or bob");
    expect(waitingLine(aQuestion({ answerers: ["alice", "bob"] }), "bob")).toBe("Waiting for alice");
    expect(waitingLine(aQuestion({ answerers: ["bob"] }), "bob")).toBeNull();
    expect(waitingLine(aQuestion(), "bob")).toBeNull();
    expect(waitingLine(aQuestion({ answerers: ["local", "alice"] }), "bob")).toBe("Waiting for Administrator or alice");
  });

  it("an approval of several waits for those who have not voted yet", () => {
    expect(waitingLine(twoOfThree([vote("bob")]), "erin")).toBe("Waiting for carol or dave");
    expect(teamStatus(twoOfThree([vote("bob")]), "erin")).toEqual({ count: "1 of 2 approved — bob", rejections: null, mine: null, waiting: "Waiting for carol or dave" });
  });

  it("counts approvals and names every approver, in the order they voted", () => {
    expect(approvalCountLine(twoOfThree())).toBe("0 of 2 approved");
    expect(approvalCountLine(twoOfThree([vote("bob")]))).toBe("1 of 2 approved — bob");
    const three = anApproval({}, { approvals: { required: 3, from: null, rejections: 1 }, votes: [vote("carol"), vote("local")] });
    expect(approvalCountLine(three)).toBe("2 of 3 approved — carol, Administrator");
    expect(approvalCountLine(aQuestion())).toBeNull();
  });

  it("counts rejections only when it takes several and someone rejected", () => {
    const several = (votes: Vote[]) => anApproval({}, { approvals: { required: 2, from: null, rejections: 2 }, votes });
    expect(rejectionCountLine(several([]))).toBeNull();
    expect(rejectionCountLine(several([vote("bob", "reject"), vote("carol")]))).toBe("1 of 2 rejected — bob");
    expect(rejectionCountLine(twoOfThree([vote("bob")]))).toBeNull();
  });

  it("tells a voter what their vote did and how many more it needs", () => {
    expect(myVoteLine(twoOfThree([vote("bob")]), "bob")).toBe("You approved · waiting for 1 more");
    expect(myVoteLine(twoOfThree([vote("bob")]), "carol")).toBeNull();
    const threeOfFour = anApproval({}, { approvals: { required: 3, from: null, rejections: 2 }, votes: [vote("bob", "reject"), vote("carol")] });
    expect(myVoteLine(threeOfFour, "carol")).toBe("You approved · waiting for 2 more");
    expect(myVoteLine(threeOfFour, "bob")).toBe("You rejected · waiting for 1 more");
    expect(teamStatus(twoOfThree([vote("bob")]), "bob")).toEqual({ count: "1 of 2 approved — bob", rejections: null, mine: "You approved · waiting for 1 more", waiting: null });
  });

  it("a question the viewer answers says nothing about waiting", () => {
    expect(teamStatus(aQuestion({ answerers: ["bob", "carol"] }), "bob")).toEqual({ count: null, rejections: null, mine: null, waiting: null });
    expect(teamStatus(aQuestion({ answerers: ["bob"] }), null)).toEqual({ count: null, rejections: null, mine: null, waiting: null });
  });

  it("a settled approval of several says who decided it", () => {
    const settled = (status: Question["status"], votes: Vote[]) => twoOfThree(votes, { status });
    expect(decidedByLine(settled("answered", [vote("bob"), vote("carol")]))).toBe("Approved by bob and carol");
    expect(decidedByLine(settled("answered", [vote("bob"), vote("local")]))).toBe("Approved by bob and Administrator");
    expect(decidedByLine(settled("answered", [vote("bob"), vote("carol")]), "carol")).toBe("Approved by bob and you");
    expect(decidedByLine(settled("declined", [vote("bob"), vote("dave", "reject")]))).toBe("Rejected by dave");
    expect(decidedByLine(settled("timed_out", [vote("bob")]))).toBeNull();
    expect(decidedByLine(aQuestion({ status: "answered", answer: "production" }))).toBeNull();
  });
});
