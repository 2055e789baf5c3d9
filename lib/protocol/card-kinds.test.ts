import { describe, expect, it } from "vitest";
import { cardKindOf, CardKindSchema } from "./card-kinds";

describe("cardKindOf", () => {
  const q = { kind: "question" as const, options: [] as string[], multi: false, replySchema: null };
  const form = { type: "object", properties: { nights: { type: "integer" } } };

  it("gives every question one card kind", () => {
    expect(cardKindOf({ ...q, kind: "approval" })).toBe("approval");
    expect(cardKindOf({ ...q, kind: "confirm" })).toBe("confirm");
    expect(cardKindOf({ ...q, replySchema: form })).toBe("form");
    expect(cardKindOf({ ...q, options: ["a", "b"] })).toBe("choice");
    expect(cardKindOf({ ...q, options: ["a", "b"], multi: true })).toBe("multi_choice");
    expect(cardKindOf(q)).toBe("text");
    // A reply schema that is no flat form is typed as JSON text.
    expect(cardKindOf({ ...q, replySchema: { type: "array", items: { type: "integer" } } })).toBe("text");
  });

  it("names every kind the table holds", () => {
    expect(CardKindSchema.options).toEqual(["choice", "multi_choice", "text", "confirm", "form", "approval"]);
  });
});
