import { describe, expect, it } from "vitest";
import { quoteWord, shellWords } from "./shell-words";

describe("a command's words", () => {
  it.each([
    ["npm test", ["npm", "test"]],
    ["  git   push\torigin main ", ["git", "push", "origin", "main"]],
    [`git commit -m 'fix: a; b'`, ["git", "commit", "-m", "fix: a; b"]],
    [`echo "a | b" c\\ d`, ["echo", "a | b", "c d"]],
    [`echo "say \\"hi\\"" 'it'\\''s'`, ["echo", 'say "hi"', "it's"]],
    [`echo "a\\b"`, ["echo", "a\\b"]],
    ["npm test --script-shell=/tmp/evil.sh", ["npm", "test", "--script-shell=/tmp/evil.sh"]],
    ["FOO=1 npm test", ["FOO=1", "npm", "test"]],
    ["a~b x=~", ["a~b", "x=~"]],
  ])("splits %j like a shell", (command, words) => {
    expect(shellWords(command)).toEqual({ ok: true, words });
  });

  it.each([
    ["npm test; echo done", "operator"],
    ["npm test && rm -rf ~", "operator"],
    ["ls | sh", "operator"],
    ["ls > /etc/passwd", "operator"],
    ["cat < /etc/passwd", "operator"],
    ["(ls)", "operator"],
    ["echo $(rm -rf ~)", "substitution"],
    ["echo `rm -rf ~`", "substitution"],
    ['echo "$(rm -rf ~)"', "substitution"],
    ["echo ${HOME}", "substitution"],
    ["echo $HOME", "substitution"],
    ["npm test\nrm -rf ~", "newline"],
    ["npm test\rrm", "newline"],
    ["ls \u0007", "control character"],
    ["ls \u2028x", "control character"],
    ["ls *.md", "expands"],
    ["ls a?", "expands"],
    ["ls [ab]", "expands"],
    ["echo {a,b}", "expands"],
    ["ls ~/x", "expands"],
    ["npm test # comment", "comment"],
    ["echo 'open", "unclosed"],
    ['echo "open', "unclosed"],
    ["echo \\", "at the end"],
    ["   ", "no command"],
  ])("refuses %j (%s)", (command, reason) => {
    const read = shellWords(command);
    expect(read.ok).toBe(false);
    expect(read.ok ? "" : read.reason).toContain(reason);
  });

  it("quotes a word so that it reads back as exactly it", () => {
    for (const word of ["npm", "--flag=a/b.c", "a b", "it's", "$HOME", "*", "", "a;b"]) {
      const quoted = quoteWord(word);
      expect(shellWords(`x ${quoted}`)).toEqual({ ok: true, words: ["x", word] });
    }
    expect(quoteWord("npm")).toBe("npm");
    expect(quoteWord("a b")).toBe("'a b'");
  });
});
