import { describe, expect, it } from "vitest";
import type { FormSchema } from "../protocol/forms";
import { tripForm } from "../../tests/helpers/questions";
import { fieldHint, formKeysOf, initialForm, pressFormKey, type FormKey, type FormState } from "./form-keys";
import { formFields } from "../protocol/forms";

const trip = tripForm as FormSchema;

const pressAll = (keys: FormKey[]) => press(...keys);

function press(...keys: FormKey[]) {
  let state: FormState = initialForm(trip);
  const effects = [];
  for (const key of keys) {
    const step = pressFormKey(trip, state, key);
    state = step.state;
    if (step.effect) effects.push(step.effect);
  }
  return { state, effects };
}

const edit = (text: string): FormKey => ({ type: "type", text });
const ENTER: FormKey = { type: "enter" };
const DOWN: FormKey = { type: "down" };
const UP: FormKey = { type: "up" };
const RIGHT: FormKey = { type: "right" };
const LEFT: FormKey = { type: "left" };
const SPACE: FormKey = { type: "type", text: " " };

describe("a form in the terminal", () => {
  it("fills every kind of field and sends typed content from the last field", () => {
    const { effects } = press(edit("Lisbon"), ENTER, edit("4"), ENTER, RIGHT, RIGHT, ENTER, SPACE, ENTER);
    expect(effects).toEqual([{ type: "reply", value: { destination: "Lisbon", nights: 4, currency: "USD", insurance: true } }]);
  });

  it("steps a choice both ways, wrapping, and ignores typing there", () => {
    const at = press(DOWN, DOWN, LEFT);
    expect(at.state.draft.currency).toBe("GBP");
    expect(press(DOWN, DOWN, RIGHT, RIGHT, RIGHT, RIGHT, edit("xx")).state.draft.currency).toBe("EUR");
  });

  it("says what is wrong with a field when it is left, not while it is untouched", () => {
    expect(press(DOWN).state.errors).toEqual({});
    const wrong = press(DOWN, edit("40"), UP);
    expect(wrong.state.errors).toEqual({ nights: "a whole number from 1 to 14" });
    // Put right, the error goes at once.
    expect(press(DOWN, edit("40"), UP, DOWN, { type: "backspace" }).state.errors).toEqual({});
  });

  it("refuses to send with the errors beside their fields, and moves to the first wrong one", () => {
    const { state, effects } = press(DOWN, DOWN, DOWN, ENTER);
    expect(effects).toEqual([]);
    expect(state.errors).toMatchObject({ destination: "required", nights: "required", currency: "required" });
    expect(state.field).toBe(0);
  });

  it("declines with a reason after Esc; Esc again goes back to the fields", () => {
    expect(press({ type: "escape" }, edit("  not now "), ENTER).effects).toEqual([{ type: "reject", message: "not now" }]);
    expect(press({ type: "escape" }, { type: "escape" }).state.mode).toBe("fields");
  });

  it("reads a chunk of typed text with line breaks as text and Enters, in order", () => {
    expect(formKeysOf("Lisbon\r4", {})).toEqual([{ type: "type", text: "Lisbon" }, { type: "enter" }, { type: "type", text: "4" }]);
    expect(formKeysOf("", { upArrow: true })).toEqual([{ type: "up" }]);
    // Enter and Space in one chunk, on the way to a box: it is ticked.
    expect(pressAll([{ type: "down" }, { type: "down" }, ...formKeysOf("\r ", {})]).state.draft.insurance).toBe(true);
    const { state } = pressAll(formKeysOf("Lisbon\r4\r", {}));
    expect(state.draft).toMatchObject({ destination: "Lisbon", nights: "4" });
    expect(state.field).toBe(2);
  });

  it("starts from the question's default", () => {
    expect(initialForm(trip, { destination: "Porto", nights: 2 }).draft).toMatchObject({ destination: "Porto", nights: "2" });
  });

  it("tells what a field takes", () => {
    expect(formFields(trip).map(fieldHint)).toEqual(["at least 2 characters", "a whole number from 1 to 14", "←→ to choose", "Space to tick"]);
  });
});
