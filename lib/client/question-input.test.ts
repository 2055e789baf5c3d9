import { describe, expect, it } from "vitest";
import { APPROVAL_KEYS, approvalAnswerOfKey, isFormQuestion, keyHint, multiAnswer, needsSubmit, numberKeyAction, textAnswer } from "./question-input";

const choice = { kind: "question" as const, options: ["Red", "Green", "Blue"], multi: false, allowCustom: false };

describe("question input", () => {
  it("a number key picks the matching option of a single choice", () => {
    expect(numberKeyAction(choice, 1)).toEqual({ type: "reply", value: "Green" });
  });

  it("a number key beyond the options does nothing", () => {
    expect(numberKeyAction(choice, 5)).toBeNull();
  });

  it("a number key ticks an option of a multi-select instead of sending", () => {
    expect(numberKeyAction({ ...choice, multi: true }, 0)).toEqual({ type: "toggle", option: "Red" });
  });

  it("1 and 2 answer a confirm with Yes and No", () => {
    const confirm = { kind: "confirm" as const, options: [], multi: false };
    expect(numberKeyAction(confirm, 0)).toEqual({ type: "reply", value: true });
    expect(numberKeyAction(confirm, 1)).toEqual({ type: "reply", value: false });
    expect(numberKeyAction(confirm, 2)).toBeNull();
  });

  it("a multi answer keeps the options' order and adds the Other text", () => {
    expect(multiAnswer(["Mozzarella", "Olives", "Basil"], ["Basil", "Mozzarella"], " Pineapple ")).toEqual(["Mozzarella", "Basil", "Pineapple"]);
  });

  it("an Other text equal to a listed option is not added twice", () => {
    expect(multiAnswer(["Olives", "Basil"], ["Basil"], "Basil")).toEqual(["Basil"]);
  });

  it("free text is trimmed and an empty answer is refused before sending", () => {
    expect(textAnswer({ replySchema: null }, "  Moonbeam \n")).toEqual({ ok: true, value: "Moonbeam" });
    expect(textAnswer({ replySchema: null }, "   ")).toMatchObject({ ok: false });
  });

  it("a question with a JSON reply schema takes its text as JSON", () => {
    const q = { replySchema: { type: "object" } };
    expect(textAnswer(q, '{"name": "Moonbeam"}')).toEqual({ ok: true, value: { name: "Moonbeam" } });
    expect(textAnswer(q, "not json")).toMatchObject({ ok: false, error: expect.stringContaining("JSON") });
  });

  it("a reply schema of type string keeps the text as text", () => {
    expect(textAnswer({ replySchema: { type: "string" } }, "[1]")).toEqual({ ok: true, value: "[1]" });
  });

  it("only free text, multi-selects and Other fields need a Submit button", () => {
    expect(needsSubmit(choice)).toBe(false);
    expect(needsSubmit({ ...choice, allowCustom: true })).toBe(true);
    expect(needsSubmit({ ...choice, multi: true })).toBe(true);
    expect(needsSubmit({ ...choice, options: [] })).toBe(true);
    expect(needsSubmit({ kind: "confirm", options: [], multi: false, allowCustom: false })).toBe(false);
  });
});

describe("approval keys", () => {
  const approval = { kind: "approval" as const, options: [], multi: false, allowCustom: false };

  it("1 allows once, 2 allows always, 3 opens the editor, 4 the reject feedback, other numbers do nothing", () => {
    expect(numberKeyAction(approval, 0)).toEqual({ type: "reply", value: "once" });
    expect(numberKeyAction(approval, 1)).toEqual({ type: "reply", value: "always" });
    expect(numberKeyAction(approval, 2)).toEqual({ type: "edit" });
    expect(numberKeyAction(approval, 3)).toEqual({ type: "reject" });
    expect(numberKeyAction(approval, 4)).toBeNull();
    expect(numberKeyAction(approval, -1)).toBeNull();
  });

  it("the keys count up in the order the card shows its answers (Reject last), each key one answer", () => {
    const shown = ["once", "always", "edit", "reject"] as const;
    expect(shown.map((a) => APPROVAL_KEYS[a])).toEqual([1, 2, 3, 4]);
    expect(shown.map((a) => approvalAnswerOfKey(APPROVAL_KEYS[a]))).toEqual(shown);
    expect(approvalAnswerOfKey(5)).toBeNull();
  });

  it("an approval has no Submit button and its own key hint", () => {
    expect(needsSubmit(approval)).toBe(false);
    expect(keyHint({ ...approval, approval: { always: [{}] } })).toBe("1 allow once · 2 allow always · 4 reject");
    expect(keyHint({ ...approval, approval: { always: [{}, {}] } })).toBe("1 allow once · 2 allow always (choose the rule) · 4 reject");
    expect(keyHint({ ...approval, approval: { always: [] } })).toBe("1 allow once · 4 reject");
    expect(keyHint({ ...approval, approval: { always: [{}], edit: { schema: {}, reader: "catalogue" } } })).toBe("1 allow once · 2 allow always · 3 edit · 4 reject");
    expect(keyHint({ ...approval, approval: { always: [], edit: { schema: {}, reader: "catalogue" } } })).toBe("1 allow once · 3 edit · 4 reject");
  });

  it("a single choice without Other needs no Submit: a tap answers at once", () => {
    expect(needsSubmit(choice)).toBe(false);
    expect(needsSubmit({ ...choice, allowCustom: true })).toBe(true);
    expect(needsSubmit({ ...choice, multi: true })).toBe(true);
    expect(needsSubmit({ kind: "question", options: [], multi: false, allowCustom: false })).toBe(true);
  });

  it("a flat reply schema is a form; any other reply schema is a JSON answer", () => {
    const form = { type: "object", properties: { amount: { type: "integer", minimum: 1 }, currency: { enum: ["EUR", "USD"] } }, required: ["amount"] };
    expect(isFormQuestion({ kind: "question", options: [], multi: false, replySchema: form })).toBe(true);
    expect(isFormQuestion({ kind: "question", options: [], multi: false, replySchema: { type: "array", items: { type: "integer" } } })).toBe(false);
    expect(isFormQuestion({ kind: "question", options: [], multi: false, replySchema: null })).toBe(false);
  });
});
