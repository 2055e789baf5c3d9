import { describe, expect, it } from "vitest";
import { ChannelTextBodySchema, formatChannelReply, refusalText, slashWord, unknownCommandLine, waitingText } from "./channels";
import type { Question } from "./question";

const question = (over: Partial<Question>): Question =>
  ({
    id: "0a1b2c3d-0000-4000-8000-000000000001",
    pendingId: "p_1",
    runId: "r1",
    sessionId: "s1",
    owner: "chat",
    kind: "question",
    prompt: "Which region?",
    options: ["us", "eu"],
    multi: false,
    allowCustom: false,
    replySchema: null,
    approval: null,
    status: "pending",
    ...over,
  }) as unknown as Question;

describe("channel reply formatting", () => {
  it("numbers the choices and says how to answer", () => {
    expect(waitingText(question({}))).toBe(["waiting for your answer (question 0a1b2c3d): Which region?", "1. us", "2. eu", "Reply with a number or a label, or /decline [feedback]."].join("\n"));
    expect(waitingText(question({ multi: true }))).toContain("Reply with the numbers or labels of your choices, separated by spaces");
    expect(waitingText(question({ allowCustom: true }))).toContain("Reply with a number or a label, or your own text");
    expect(waitingText(question({ options: [] }))).toBe("waiting for your answer (question 0a1b2c3d): Which region?\nReply with your answer, or /decline [feedback].");
    expect(waitingText(question({ kind: "confirm", prompt: "Proceed?", options: [] }))).toBe("waiting for your answer (question 0a1b2c3d): Proceed?\nReply yes or no, or /decline [feedback].");
    const approval = question({ kind: "approval", options: [], approval: { tool: "write_file", subject: "docs/a.md" } as Question["approval"] });
    expect(waitingText(approval)).toBe("waiting for your answer (question 0a1b2c3d): chat asks to use write_file: docs/a.md\nReply once, always or deny (deny may add feedback).");
    const command = question({
      kind: "approval",
      options: [],
      approval: { tool: "shell", subject: "npm test", preview: { type: "command", command: "npm test", bound: "sandboxed" } } as Question["approval"],
    });
    expect(waitingText(command)).toBe(
      "waiting for your answer (question 0a1b2c3d): chat asks to use shell: npm test\nRuns sandboxed: can change only the workspace, no network\nReply once, always or deny (deny may add feedback).",
    );
  });

  it("puts what the agent said first, then the question; several questions list their ids", () => {
    expect(formatChannelReply({ said: ["Let me check.", "  "], pending: [question({})] })).toBe(
      "Let me check.\n\nwaiting for your answer (question 0a1b2c3d): Which region?\n1. us\n2. eu\nReply with a number or a label, or /decline [feedback].",
    );
    expect(formatChannelReply({ said: ["Done."], pending: [] })).toBe("Done.");
    expect(formatChannelReply({ said: [], pending: [] })).toMatch(/outbox/);
    const two = formatChannelReply({ said: [], pending: [question({}), question({ id: "ffffeeee-0000-4000-8000-000000000002", prompt: "Size?" })] });
    expect(two).toContain("waiting for your answers");
    expect(two).toContain("/answer 0a1b2c3d");
    expect(two).toContain("/answer ffffeeee");
  });

  it("a refusal says why, then what waits (or that nothing does); an unknown command's line lists the known ones, the functions' last", () => {
    expect(refusalText("Why.", [question({})])).toBe(`Why.\n\n${waitingText(question({}))}`);
    expect(refusalText("Why.", [])).toBe("Why.\n\nNothing is waiting for an answer.");
    expect(unknownCommandLine("pending", ["coffee"])).toMatch(/^\/pending is not a command here\. The commands are \/answer, \/decline, \/approve, \/coffee;/);
    expect([slashWord("/Pending now"), slashWord("  /order-coffee"), slashWord("plain"), slashWord("/ x"), slashWord("1/2")]).toEqual(["pending", "order-coffee", null, null, null]);
  });

  it("the body is strict; from is a short single line", () => {
    expect(ChannelTextBodySchema.safeParse({ sessionId: "s", from: "ann", text: "hi" }).success).toBe(true);
    expect(ChannelTextBodySchema.safeParse({ sessionId: "s", from: "ann", text: "hi", extra: 1 }).success).toBe(false);
    expect(ChannelTextBodySchema.safeParse({ sessionId: "s", from: "a\nb", text: "hi" }).success).toBe(false);
    expect(ChannelTextBodySchema.safeParse({ sessionId: "s", from: "x".repeat(81), text: "hi" }).success).toBe(false);
    expect(ChannelTextBodySchema.safeParse({ sessionId: "s", from: "ann", text: "  " }).success).toBe(false);
  });
});
