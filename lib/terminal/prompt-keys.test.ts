import { describe, expect, it } from "vitest";
import { anApproval, aQuestion } from "../../tests/helpers/questions";
import { initialPrompt, pressKey, promptHint, promptRows, type PromptKey, type PromptState } from "./prompt-keys";
import type { Question } from "../protocol/question";

/** Presses keys in order; returns the last state and every effect on the way. */
function press(q: Question, ...keys: PromptKey[]) {
  let state: PromptState = initialPrompt(q);
  const effects = [];
  for (const key of keys) {
    const step = pressKey(q, state, key);
    state = step.state;
    if (step.effect) effects.push(step.effect);
  }
  return { state, effects };
}

const char = (c: string): PromptKey => ({ type: "char", char: c });
const edit = (value: string): PromptKey => ({ type: "edit", value });
const ENTER: PromptKey = { type: "enter" };
const ESC: PromptKey = { type: "escape" };
const UP: PromptKey = { type: "up" };
const DOWN: PromptKey = { type: "down" };
const SPACE: PromptKey = { type: "space" };

const choice = aQuestion({ options: ["small", "medium", "large"] });
const multi = aQuestion({ options: ["ham", "cheese", "olives"], multi: true, allowCustom: true });
const free = aQuestion({ options: [] });
const confirm = aQuestion({ kind: "confirm", options: [] });
const approval = anApproval();

describe("a choice", () => {
  it("moves with the arrows (wrapping) and sends the row under the cursor on Enter", () => {
    expect(press(choice, DOWN, DOWN, ENTER).effects).toEqual([{ type: "reply", value: "large" }]);
    expect(press(choice, UP, ENTER).effects).toEqual([{ type: "reply", value: "large" }]);
    expect(press(choice, DOWN, DOWN, DOWN, ENTER).effects).toEqual([{ type: "reply", value: "small" }]);
  });

  it("a number key selects its row and Enter sends it: a number alone answers nothing; one past the options does nothing", () => {
    expect(press(choice, char("2")).effects).toEqual([]);
    expect(press(choice, char("2")).state.cursor).toBe(1);
    expect(press(choice, char("2"), ENTER).effects).toEqual([{ type: "reply", value: "medium" }]);
    expect(press(choice, char("3"), char("1"), ENTER).effects).toEqual([{ type: "reply", value: "small" }]);
    expect(press(choice, char("7"), char("x"), ENTER).effects).toEqual([{ type: "reply", value: "small" }]);
  });

  it("Esc asks for a reason and Enter declines with it; Esc again goes back", () => {
    expect(press(choice, ESC, edit("  not now "), ENTER).effects).toEqual([{ type: "reject", message: "not now" }]);
    expect(press(choice, ESC, ENTER).effects).toEqual([{ type: "reject", message: null }]);
    const back = press(choice, ESC, ESC);
    expect(back.state.mode).toBe("choose");
    expect(back.effects).toEqual([]);
  });

  it("ignores typing while the rows have the keys", () => {
    expect(press(choice, edit("hello")).state.text).toBe("");
  });
});

describe("a multi with Other", () => {
  it("ticks with Space or numbers and sends the ticked options in the question's order", () => {
    expect(press(multi, char("3"), UP, UP, SPACE, ENTER).effects).toEqual([{ type: "reply", value: ["ham", "olives"] }]);
    expect(press(multi, DOWN, SPACE, SPACE, SPACE, ENTER).effects).toEqual([{ type: "reply", value: ["cheese"] }]);
  });

  it("refuses to send nothing, and says how to tick", () => {
    const { state, effects } = press(multi, ENTER);
    expect(effects).toEqual([]);
    expect(state.error).toMatch(/Tick at least one/);
  });

  it("opens a text field on the Other row (number or Enter) and sends it with the ticks", () => {
    expect(press(multi, char("1"), char("4"), ENTER, edit("anchovies"), ENTER).effects).toEqual([{ type: "reply", value: ["ham", "anchovies"] }]);
    const field = press(multi, UP, ENTER);
    expect(field.state.mode).toBe("text");
    expect(press(multi, UP, ENTER, ESC).state.mode).toBe("choose");
  });
});

describe("a single choice with Other", () => {
  const other = aQuestion({ options: ["a", "b"], allowCustom: true });
  it("sends the typed answer, not an empty one", () => {
    expect(press(other, char("3"), ENTER, edit(" c "), ENTER).effects).toEqual([{ type: "reply", value: "c" }]);
    const empty = press(other, char("3"), ENTER, ENTER);
    expect(empty.effects).toEqual([]);
    expect(empty.state.error).toMatch(/Type an answer/);
  });
});

describe("free text", () => {
  it("starts in the text field and sends the trimmed text", () => {
    expect(initialPrompt(free).mode).toBe("text");
    expect(press(free, edit(" staging "), ENTER).effects).toEqual([{ type: "reply", value: "staging" }]);
  });

  it("says so when the text is empty, and digits are text here", () => {
    expect(press(free, ENTER).state.error).toBe("The answer is empty.");
    expect(press(free, char("1"), edit("1"), ENTER).effects).toEqual([{ type: "reply", value: "1" }]);
  });

  it("parses JSON for a reply schema, with a readable error", () => {
    const json = aQuestion({ options: [], replySchema: { type: "object" } });
    expect(press(json, edit('{"a": 1}'), ENTER).effects).toEqual([{ type: "reply", value: { a: 1 } }]);
    expect(press(json, edit("{a"), ENTER).state.error).toMatch(/must be JSON/);
  });

  it("Esc opens the reason; Esc there comes back to the text kept as typed", () => {
    const { state } = press(free, edit("half"), ESC, ESC);
    expect(state.mode).toBe("text");
    expect(state.text).toBe("half");
    expect(press(free, ESC, edit("busy"), ENTER).effects).toEqual([{ type: "reject", message: "busy" }]);
  });
});

describe("a confirm", () => {
  it("y / n and 1 / 2 select Yes or No, and Enter sends the row", () => {
    expect(press(confirm, char("y")).effects).toEqual([]);
    expect(press(confirm, char("n"), char("y"), ENTER).effects).toEqual([{ type: "reply", value: true }]);
    expect(press(confirm, char("N"), ENTER).effects).toEqual([{ type: "reply", value: false }]);
    expect(press(confirm, char("2"), ENTER).effects).toEqual([{ type: "reply", value: false }]);
    expect(press(confirm, DOWN, ENTER).effects).toEqual([{ type: "reply", value: false }]);
  });
});

describe("an approval", () => {
  it("has Allow once, Allow always (naming the rule) and Reject", () => {
    expect(promptRows(approval).map((r) => r.label)).toEqual(["Allow once", "Allow always", "Reject"]);
    expect(promptRows(approval)[1]!.hint).toBe("Allow write_file: any file under `docs/`, in this chat");
  });

  it("y selects once, a always, n and 4 Reject; Enter sends, and Reject asks for feedback first", () => {
    expect(press(approval, char("a")).effects).toEqual([]);
    expect(press(approval, char("y"), ENTER).effects).toEqual([{ type: "reply", value: "once" }]);
    expect(press(approval, char("a"), ENTER).effects).toEqual([{ type: "reply", value: "always" }]);
    expect(press(approval, char("n"), ENTER, edit("use docs/b.md"), ENTER).effects).toEqual([{ type: "reject", message: "use docs/b.md" }]);
    expect(press(approval, char("4"), ENTER).state.mode).toBe("reason");
    expect(promptHint(approval, press(approval, char("4"), ENTER).state)).toBe("Enter to reject · Esc to go back");
  });

  it("its number keys are the web card's: 1 once, 2 always, 4 Reject; 3 (the browser's Edit and allow) selects nothing", () => {
    expect(promptRows(approval).map((r) => [r.label, r.key])).toEqual([
      ["Allow once", 1],
      ["Allow always", 2],
      ["Reject", 4],
    ]);
    expect(promptRows(approval).map((r) => r.key)).toEqual(
      promptRows(approval)
        .map((r) => r.key)
        .sort(),
    );
    expect(press(approval, char("2"), ENTER).effects).toEqual([{ type: "reply", value: "always" }]);
    expect(press(approval, DOWN, char("3")).state.cursor).toBe(1);
    expect(press(approval, char("3"), ENTER).effects).toEqual([{ type: "reply", value: "once" }]);
  });
});

describe("an approval's Allow always in the terminal", () => {
  const two = anApproval({
    always: [
      { pattern: "docs/a.md", cwd: null, label: "`docs/a.md` exactly" },
      { pattern: "docs/**", cwd: null, label: "any file under `docs/`" },
    ],
  });

  it("is exactly this call, even when a wider rule is on offer", () => {
    expect(promptRows(two)[1]!.hint).toBe("Allow write_file: `docs/a.md` exactly, in this chat");
    expect(press(two, char("a"), ENTER).effects).toEqual([{ type: "reply", value: "always" }]);
    expect(press(two, char("2"), ENTER).effects).toEqual([{ type: "reply", value: "always" }]);
  });

  it("is not offered without an option: a does nothing, n still asks why", () => {
    const none = anApproval({ always: [] });
    expect(promptRows(none).map((r) => [r.label, r.key])).toEqual([
      ["Allow once", 1],
      ["Reject", 4],
    ]);
    expect(press(none, char("2"), ENTER).effects).toEqual([{ type: "reply", value: "once" }]);
    expect(press(none, char("4"), ENTER).state.mode).toBe("reason");
    expect(press(none, char("a"), ENTER).effects).toEqual([{ type: "reply", value: "once" }]);
    expect(press(none, char("a")).state.mode).toBe("choose");
    expect(press(none, char("n"), ENTER).state.mode).toBe("reason");
  });

  it("names the rule with hidden characters marked", () => {
    const sneaky = anApproval({ always: [{ pattern: "x", cwd: null, label: "`rm\u202E-rf` exactly" }] });
    expect(promptRows(sneaky)[1]!.hint).toBe("Allow write_file: `rm⟨RLO⟩-rf` exactly, in this chat");
  });
});
