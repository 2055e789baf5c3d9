import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import { notificationFor, questionLink, questionOfAnchor } from "./question-notification";

describe("notificationFor", () => {
  it("names who asks and what, with the chat, tagged by the question so tabs and pushes don't stack copies", () => {
    expect(notificationFor(aQuestion({ owner: "order-coffee", prompt: "Which drink?" }), "Morning")).toEqual({ title: "Order coffee asks", body: "Which drink?\n— Morning", tag: "q1" });
    expect(notificationFor(aQuestion({ owner: "ci", prompt: "Ship?" }), null).body).toBe("Ship?");
  });

  it("an approval says what it would run", () => {
    const q = aQuestion({ kind: "approval", owner: "coffee-helper", approval: { tool: "shell" } as never });
    expect(notificationFor(q, null).title).toBe("Coffee helper wants to run shell");
  });
});

describe("questionLink", () => {
  it("leads to the session, on the card", () => {
    expect(questionLink({ id: "q1", sessionId: "s 1" })).toBe("/s/s%201#question-q1");
  });

  it("is read back from the page's hash: the question it names, or none", () => {
    expect(questionOfAnchor(new URL(questionLink({ id: "q1", sessionId: "s" }), "http://x").hash)).toBe("q1");
    for (const hash of ["", "#", "#question-", "#other-q1"]) expect(questionOfAnchor(hash)).toBeNull();
  });
});
