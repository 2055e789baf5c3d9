import { describe, expect, it } from "vitest";
import { namesSeenBy } from "./display-names";

describe("namesSeenBy", () => {
  const everyone = { local: "Boss", ann: "Ann", bob: "bob", carol: "Carol" };

  it("gives an administrator every name", () => {
    expect(namesSeenBy({ id: "ann", admin: true }, everyone, new Set())).toEqual(everyone);
  });

  it("gives anyone else their own, the administrator's and those who share a chat with them: not the list of all people", () => {
    expect(namesSeenBy({ id: "ann", admin: false }, everyone, new Set(["bob"]))).toEqual({ local: "Boss", ann: "Ann", bob: "bob" });
    expect(namesSeenBy({ id: "carol", admin: false }, everyone, new Set())).toEqual({ local: "Boss", carol: "Carol" });
  });
});
