/** Unified diff text (as a write_file approval previews it) read into lines a card can colour. */

export type DiffLine =
  | { kind: "hunk"; text: string }
  | { kind: "context" | "add" | "del"; text: string; oldNo: number | null; newNo: number | null }
  /** "\ No newline at end of file" and the like. */
  | { kind: "note"; text: string };

export interface ParsedDiff {
  /** From the `--- ` / `+++ ` headers (a `a/` or `b/` prefix and a trailing tab-separated date removed); null when absent. */
  oldPath: string | null;
  newPath: string | null;
  lines: DiffLine[];
  added: number;
  removed: number;
}

const HUNK = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/;

function headerPath(line: string): string | null {
  const raw = line.slice(4).split("\t")[0]!.trim();
  if (!raw || raw === "/dev/null") return null;
  return raw.replace(/^[ab]\//, "");
}

/**
 * Reads unified diff text. Lines before the first hunk (Index:, ===, diff --git, ---/+++) are
 * headers, not content; inside a hunk its counts decide where it ends, so a removed line that
 * itself starts with "-- " is still a removed line. Text without hunk headers is read loosely:
 * lines starting with + or - are additions and removals, the rest context.
 */
export function parseUnifiedDiff(text: string): ParsedDiff {
  const source = text.replace(/\r\n/g, "\n").replace(/\n$/, "").split("\n");
  const out: ParsedDiff = { oldPath: null, newPath: null, lines: [], added: 0, removed: 0 };
  if (text.trim() === "") return out;
  const hasHunks = source.some((l) => HUNK.test(l));

  let oldLeft = 0;
  let newLeft = 0;
  let oldNo = 0;
  let newNo = 0;
  const push = (kind: "context" | "add" | "del", body: string) => {
    out.lines.push({ kind, text: body, oldNo: hasHunks && kind !== "add" ? oldNo : null, newNo: hasHunks && kind !== "del" ? newNo : null });
    if (kind !== "add") {
      oldNo++;
      oldLeft--;
    }
    if (kind !== "del") {
      newNo++;
      newLeft--;
    }
    if (kind === "add") out.added++;
    if (kind === "del") out.removed++;
  };

  for (const line of source) {
    const inHunk = oldLeft > 0 || newLeft > 0;
    if (!hasHunks) {
      if (line.startsWith("+") && !line.startsWith("+++ ")) push("add", line.slice(1));
      else if (line.startsWith("-") && !line.startsWith("--- ")) push("del", line.slice(1));
      else if (line.startsWith("\\")) out.lines.push({ kind: "note", text: line.slice(1).trim() });
      else if (line.startsWith("--- ")) out.oldPath = headerPath(line);
      else if (line.startsWith("+++ ")) out.newPath = headerPath(line);
      else push("context", line.startsWith(" ") ? line.slice(1) : line);
      continue;
    }
    if (inHunk) {
      const mark = line[0];
      if (mark === "+" && newLeft > 0) push("add", line.slice(1));
      else if (mark === "-" && oldLeft > 0) push("del", line.slice(1));
      else if (mark === "\\") out.lines.push({ kind: "note", text: line.slice(1).trim() });
      // Some tools strip the space of an empty context line.
      else if (mark === " " || line === "") push("context", line.slice(1));
      else {
        oldLeft = newLeft = 0;
        readOutside(line);
      }
      continue;
    }
    readOutside(line);
  }
  return out;

  function readOutside(line: string) {
    const hunk = HUNK.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[3]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
      out.lines.push({ kind: "hunk", text: line });
    } else if (line.startsWith("--- ")) out.oldPath = headerPath(line);
    else if (line.startsWith("+++ ")) out.newPath = headerPath(line);
    else if (line.startsWith("\\")) out.lines.push({ kind: "note", text: line.slice(1).trim() });
    // Index:, ===, diff --git, mode lines: headers the card does not show.
  }
}

/**
 * The digits of the highest line number, so both number columns (old, new) take one width; 0 when
 * no line is numbered (text read without hunks): the card then shows no number columns.
 */
export function numberDigits(parsed: Pick<ParsedDiff, "lines">): number {
  let highest = 0;
  for (const line of parsed.lines) if (line.kind === "context" || line.kind === "add" || line.kind === "del") highest = Math.max(highest, line.oldNo ?? 0, line.newNo ?? 0);
  return highest === 0 ? 0 : String(highest).length;
}
