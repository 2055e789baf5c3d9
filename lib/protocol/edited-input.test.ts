import { describe, expect, it } from "vitest";
import { editedJson } from "./edited-input";

describe("editedJson", () => {
  it("reads an object", () => {
    expect(editedJson('{ "command": "npm test" }')).toEqual({ ok: true, input: { command: "npm test" } });
  });

  it("says why anything else is not an input", () => {
    expect(editedJson("{ command: 1 }")).toMatchObject({ ok: false, error: expect.stringMatching(/^Not valid JSON: /) });
    for (const text of ["[1]", "null", '"x"', "3"]) expect(editedJson(text)).toEqual({ ok: false, error: "The input must be a JSON object ({ … })." });
  });
});
