/**
 * Text as a person must see it before approving it: control characters, bidirectional controls and
 * invisible characters become marks ("ESC", "RLO", "ZWSP") instead of being applied, so a
 * right-to-left override cannot reverse what is shown and an escape sequence cannot hide a line.
 * Newline and tab stay themselves. Used by the browser card and the terminal client.
 */

export type VisiblePart = { mark: false; text: string } | { mark: true; char: string; code: string; label: string; name: string };

const C0 = [
  "NUL",
  "SOH",
  "STX",
  "ETX",
  "EOT",
  "ENQ",
  "ACK",
  "BEL",
  "BS",
  "HT",
  "LF",
  "VT",
  "FF",
  "CR",
  "SO",
  "SI",
  "DLE",
  "DC1",
  "DC2",
  "DC3",
  "DC4",
  "NAK",
  "SYN",
  "ETB",
  "CAN",
  "EM",
  "SUB",
  "ESC",
  "FS",
  "GS",
  "RS",
  "US",
];

/** Characters that format, reorder or hide text, with the short label the mark shows and the name it explains. */
const NAMED: Record<number, [string, string]> = {
  0x7f: ["DEL", "delete"],
  0xa0: ["NBSP", "no-break space"],
  0xad: ["SHY", "soft hyphen"],
  0x34f: ["CGJ", "combining grapheme joiner"],
  0x61c: ["ALM", "Arabic letter mark"],
  0x115f: ["HF", "Hangul choseong filler"],
  0x1160: ["HF", "Hangul jungseong filler"],
  0x17b4: ["KIVAQ", "Khmer vowel inherent aq"],
  0x17b5: ["KIVAA", "Khmer vowel inherent aa"],
  0x180e: ["MVS", "Mongolian vowel separator"],
  0x200b: ["ZWSP", "zero width space"],
  0x200c: ["ZWNJ", "zero width non-joiner"],
  0x200d: ["ZWJ", "zero width joiner"],
  0x200e: ["LRM", "left-to-right mark"],
  0x200f: ["RLM", "right-to-left mark"],
  0x2028: ["LSEP", "line separator"],
  0x2029: ["PSEP", "paragraph separator"],
  0x202a: ["LRE", "left-to-right embedding"],
  0x202b: ["RLE", "right-to-left embedding"],
  0x202c: ["PDF", "pop directional formatting"],
  0x202d: ["LRO", "left-to-right override"],
  0x202e: ["RLO", "right-to-left override"],
  0x202f: ["NNBSP", "narrow no-break space"],
  0x205f: ["MMSP", "medium mathematical space"],
  0x2060: ["WJ", "word joiner"],
  0x2061: ["FA", "function application"],
  0x2062: ["IT", "invisible times"],
  0x2063: ["IS", "invisible separator"],
  0x2064: ["IP", "invisible plus"],
  0x2066: ["LRI", "left-to-right isolate"],
  0x2067: ["RLI", "right-to-left isolate"],
  0x2068: ["FSI", "first strong isolate"],
  0x2069: ["PDI", "pop directional isolate"],
  0x3000: ["IDSP", "ideographic space"],
  0x3164: ["HF", "Hangul filler"],
  0xfeff: ["BOM", "zero width no-break space (byte order mark)"],
  0xffa0: ["HF", "halfwidth Hangul filler"],
  0xfff9: ["IAA", "interlinear annotation anchor"],
  0xfffa: ["IAS", "interlinear annotation separator"],
  0xfffb: ["IAT", "interlinear annotation terminator"],
};

const hex = (cp: number) => `U+${cp.toString(16).toUpperCase().padStart(4, "0")}`;

/** The mark of a character that must not reach the screen as itself; null for an ordinary one (newline and tab included). */
function markOf(cp: number): [string, string] | null {
  if (cp === 0x0a || cp === 0x09) return null;
  if (cp < 0x20) return [C0[cp]!, `control character ${C0[cp]}`];
  if (cp >= 0x80 && cp <= 0x9f) return [`\\x${cp.toString(16)}`, "C1 control character"];
  const named = NAMED[cp];
  if (named) return named;
  if (cp >= 0x2000 && cp <= 0x200a) return ["SP", "typographic space"];
  if (cp >= 0x206a && cp <= 0x206f) return ["FMT", "deprecated format character"];
  if (cp >= 0xe0000 && cp <= 0xe007f) return ["TAG", "tag character"];
  if (cp >= 0xd800 && cp <= 0xdfff) return ["SURR", "lone surrogate"];
  return null;
}

/** The text split into plain runs and marks, in order; joined back, the plain runs and each mark's `char` give the text again. */
export function visibleParts(text: string): VisiblePart[] {
  const parts: VisiblePart[] = [];
  let run = "";
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const mark = markOf(cp);
    if (!mark) {
      run += char;
      continue;
    }
    if (run) parts.push({ mark: false, text: run });
    run = "";
    parts.push({ mark: true, char, code: hex(cp), label: mark[0], name: mark[1] });
  }
  if (run) parts.push({ mark: false, text: run });
  return parts;
}

/** How many characters of `text` are shown as marks. */
export function hiddenCount(text: string): number {
  let n = 0;
  for (const char of text) if (markOf(char.codePointAt(0)!)) n++;
  return n;
}

/** One line of plain text with every mark written as ⟨LABEL⟩: for places that cannot style a mark (a title, the terminal's one-line labels). */
export function visibleString(text: string): string {
  return visibleParts(text)
    .map((p) => (p.mark ? `⟨${p.label}⟩` : p.text))
    .join("");
}

/** "3 lines · 412 characters" (characters as a person counts them: code points). */
export function sizeLabel(text: string): string {
  const lines = text === "" ? 0 : text.split("\n").length;
  const chars = [...text].length;
  return `${lines} ${lines === 1 ? "line" : "lines"} · ${chars} ${chars === 1 ? "character" : "characters"}`;
}

/** The warning a card shows when marks were needed: "This command contains 2 hidden characters, shown marked." */
export function hiddenWarning(count: number, what = "This request"): string | null {
  if (count === 0) return null;
  return `${what} contains ${count} hidden or control ${count === 1 ? "character" : "characters"}, shown marked.`;
}
