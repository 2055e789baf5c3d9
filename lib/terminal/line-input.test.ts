import { describe, expect, it } from "vitest";
import { takeLine } from "./line-input";

describe("takeLine", () => {
  it("keeps a plain line", () => expect(takeLine("hello")).toEqual({ text: "hello", submit: false }));
  it("submits on a final line break (Enter in the same chunk as the text)", () => {
    expect(takeLine("/help\r")).toEqual({ text: "/help", submit: true });
    expect(takeLine("a\r\n")).toEqual({ text: "a", submit: true });
  });
  it("turns inner line breaks of a paste into spaces", () => expect(takeLine("one\rtwo\r\nthree\nfour")).toEqual({ text: "one two three four", submit: false }));
});
