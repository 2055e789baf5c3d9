import { describe, expect, it } from "vitest";
import { answerLinkToken, readAnswerLinkToken } from "./answer-link";

describe("an email's answer link", () => {
  const key = "k".repeat(43);
  it("names the mail it was made for, and only with this server's key", () => {
    const token = answerLinkToken(key, "01a2531e-530d-71bc-90ca-2b4132c8f28c");
    expect(readAnswerLinkToken(key, token)).toBe("01a2531e-530d-71bc-90ca-2b4132c8f28c");
    expect(readAnswerLinkToken("another-key", token)).toBeNull();
  });

  it("refuses a token for another mail, a cut or changed signature, and nonsense", () => {
    const token = answerLinkToken(key, "m1");
    const [, sig] = token.split(".");
    expect(readAnswerLinkToken(key, `m2.${sig}`)).toBeNull();
    expect(readAnswerLinkToken(key, token.slice(0, -1))).toBeNull();
    expect(readAnswerLinkToken(key, `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`)).toBeNull();
    for (const nonsense of ["", ".", "m1", ".abc", "x".repeat(300)]) expect(readAnswerLinkToken(key, nonsense)).toBeNull();
  });
});
