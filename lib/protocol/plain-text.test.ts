import { describe, expect, it } from "vitest";
import { jsonTextProblem, textProblem } from "./plain-text";

describe("text a person or a client sends", () => {
  it("takes any text with newlines and tabs, in any script", () => {
    for (const text of ["ok", "two\nlines\tand a tab", "windows\r\nline", "émoji 😀 and 日本語", ""]) expect(textProblem(text), JSON.stringify(text)).toBeNull();
  });

  it("refuses a NUL, other control characters, a bare carriage return and lone surrogates", () => {
    expect(textProblem("a\u0000b")).toMatch(/NUL/);
    expect(textProblem("a\u001bb")).toMatch(/control character/);
    expect(textProblem("a\u007f")).toMatch(/control character/);
    expect(textProblem("over\rwrite")).toMatch(/control character/);
    expect(textProblem("half \ud83d")).toMatch(/lone surrogate/);
    expect(textProblem("\ude00 half")).toMatch(/lone surrogate/);
  });

  it("finds the first such string anywhere in an answer, keys too", () => {
    expect(jsonTextProblem(["a", "b"])).toBeNull();
    expect(jsonTextProblem("a\u0000")).toBe("the answer holds a NUL character");
    expect(jsonTextProblem(["ok", "x\u0007"])).toBe("the answer's /1 holds a control character (only newlines and tabs belong in text)");
    expect(jsonTextProblem({ name: { first: "\ud800" } })).toMatch(/^the answer's \/name\/first holds a lone surrogate/);
    expect(jsonTextProblem({ "k\u0000": 1 })).toMatch(/key/);
    expect(jsonTextProblem(42)).toBeNull();
  });
});
