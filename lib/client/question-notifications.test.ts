import { describe, expect, it } from "vitest";
import { aQuestion } from "../../tests/helpers/questions";
import { notificationFor } from "./question-notifications";

describe("notificationFor", () => {
  it("names who asks and what, with the chat, tagged by the question so tabs (and a push to this browser) don't stack copies", () => {
    expect(notificationFor(aQuestion({ owner: "order-coffee", prompt: "Which drink?" }), "Morning")).toEqual({ title: "Order coffee asks", body: "Which drink?\n— Morning", tag: "q1" });
  });
});
