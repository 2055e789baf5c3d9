import { describe, expect, it } from "vitest";
import { normalizeAnswer } from "./answer";
import { AppError } from "./errors";

const choice = { kind: "question" as const, options: ["production", "staging"], multi: false, allowCustom: false };
const rejects = (fn: () => unknown, reason: RegExp) => {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe("invalid_answer");
    expect((err as AppError).message).toMatch(reason);
    return;
  }
  throw new Error("expected invalid_answer");
};

describe("normalizeAnswer", () => {
  it("accepts one of the options and trims it", () => {
    expect(normalizeAnswer(choice, "  staging ")).toBe("staging");
  });

  it("refuses a choice that is not among the options when custom text is not allowed", () => {
    rejects(() => normalizeAnswer(choice, "moon"), /not one of the options/);
  });

  it("accepts free text beside the options when custom text is allowed", () => {
    expect(normalizeAnswer({ ...choice, allowCustom: true }, "moon")).toBe("moon");
  });

  it("refuses an empty answer", () => {
    rejects(() => normalizeAnswer({ ...choice, options: [] }, "   "), /empty/);
  });

  it("refuses a multi answer to a single-choice question", () => {
    rejects(() => normalizeAnswer(choice, ["production", "staging"]), /single answer/);
  });

  it("refuses even a one-element list for a single choice: its answer is text", () => {
    rejects(() => normalizeAnswer(choice, ["staging"]), /single answer as text/);
  });

  it("takes a list for multi, de-duplicated, and refuses an empty list", () => {
    const multi = { ...choice, multi: true };
    expect(normalizeAnswer(multi, ["staging", "production", "staging"])).toEqual(["staging", "production"]);
    rejects(() => normalizeAnswer(multi, []), /at least one/);
    rejects(() => normalizeAnswer(multi, "staging"), /list of choices/);
    rejects(() => normalizeAnswer(multi, ["staging", "moon"]), /not one of the options/);
  });

  it("takes only a boolean for a confirm", () => {
    const confirm = { kind: "confirm" as const, options: [], multi: false, allowCustom: false };
    expect(normalizeAnswer(confirm, false)).toBe(false);
    rejects(() => normalizeAnswer(confirm, "yes"), /true or false/);
  });

  it("refuses a boolean for a question", () => {
    rejects(() => normalizeAnswer(choice, true), /not true\/false/);
  });
});
