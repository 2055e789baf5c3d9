import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Root, RootContent } from "mdast";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import Markdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { describe, expect, it } from "vitest";

/**
 * Every Markdown table of the README and docs/ renders as a table: rendered the way the app renders
 * agent messages (react-markdown with remark-gfm), a line outside a code block that starts with `|`
 * must be part of a rendered table (a blank line inside a table, or a row without the header's
 * delimiter row, leaves stray pipes in a paragraph), and every row has as many cells as its header
 * (GFM pads a short row and drops a long row's extra cells without a word).
 */

const root = path.resolve(import.meta.dirname, "..");

function markdownFiles(): string[] {
  const docs = readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => path.join("docs", file));
  return ["README.md", ...docs.sort()];
}

/** What is wrong with the tables of one Markdown text, each as "line N: …" (none: []). */
function tableProblems(markdown: string): string[] {
  let tree: Root | undefined;
  const capture = () => (parsed: Root) => {
    tree = parsed;
  };
  const html = renderToStaticMarkup(createElement(Markdown, { remarkPlugins: [remarkGfm, capture] }, markdown));
  if (!tree) throw new Error("the Markdown was not parsed");

  const tables: Array<{ start: number; end: number; rows: number[] }> = [];
  const code: Array<{ start: number; end: number }> = [];
  const visit = (node: RootContent | Root) => {
    const { start, end } = node.position ?? { start: { line: 0 }, end: { line: -1 } };
    if (node.type === "table") tables.push({ start: start.line, end: end.line, rows: node.children.map((row) => row.children.length) });
    else if (node.type === "code") code.push({ start: start.line, end: end.line });
    else if ("children" in node) for (const child of node.children) visit(child);
  };
  visit(tree);

  const problems: string[] = [];
  const rendered = html.match(/<table>/g)?.length ?? 0;
  if (rendered !== tables.length) problems.push(`${tables.length} tables parsed, ${rendered} rendered`);
  const within = (line: number, ranges: Array<{ start: number; end: number }>) => ranges.some((r) => line >= r.start && line <= r.end);
  markdown.split("\n").forEach((text, index) => {
    const line = index + 1;
    if (text.trimStart().startsWith("|") && !within(line, code) && !within(line, tables)) {
      problems.push(`line ${line}: starts with | but is in no table: ${text.slice(0, 80)}`);
    }
  });
  for (const table of tables) {
    const [header, ...rows] = table.rows;
    rows.forEach((cells, i) => {
      // The delimiter row is no node: body row i is line start + 2 + i (a table has no blank lines).
      if (cells !== header) problems.push(`line ${table.start + 2 + i}: ${cells} cells in a table whose header has ${header}`);
    });
  }
  return problems;
}

describe("the table check", () => {
  it("passes tables that render whole, and pipes in code blocks", () => {
    const ok = "| a | b |\n| --- | --- |\n| 1 | `x \\| y` |\n\n```\n| not a table |\n```\n\n- in a list:\n\n  | c |\n  | - |\n  | 3 |\n";
    expect(tableProblems(ok)).toEqual([]);
  });

  it("fails a row cut off from its table by a blank line, and rows of the wrong width", () => {
    const broken = "| a | b |\n| --- | --- |\n| 1 | 2 | 3 |\n| 4 |\n\n| 5 | 6 |\n";
    expect(tableProblems(broken)).toEqual(["line 6: starts with | but is in no table: | 5 | 6 |", "line 3: 3 cells in a table whose header has 2", "line 4: 1 cells in a table whose header has 2"]);
  });
});

describe("every Markdown table of the README and docs/ renders whole", () => {
  it.each(markdownFiles())("%s", (file) => {
    expect(tableProblems(readFileSync(path.join(root, file), "utf8"))).toEqual([]);
  });
});
