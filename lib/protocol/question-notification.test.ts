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

  it("an approval's long text says what its command can reach", () => {
    const preview = { type: "command", command: "npm test", bound: "network" } as const;
    const q = aQuestion({ kind: "approval", prompt: "Run `npm test` with network access?", approval: { tool: "shell", preview } as never });
    expect(notificationFor(q, "Release").body).toBe("Run `npm test` with network access?\nRuns sandboxed: can change only the workspace, with network access\n— Release");
    const plain = aQuestion({ kind: "approval", prompt: "Run `ls`?", approval: { tool: "shell", preview: { ...preview, bound: "unsandboxed" } } as never });
    expect(notificationFor(plain, null).body).toBe("Run `ls`?\nNot sandboxed: it can reach everything the server's user can (bubblewrap cannot run here)");
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
