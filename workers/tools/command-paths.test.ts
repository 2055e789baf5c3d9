import { describe, expect, it } from "vitest";
import { commandPathProblem, commandWords, relativePathWords } from "./command-paths";

describe("commandWords", () => {
  it("splits like sh: quotes removed, operators and $( ) split", () => {
    expect(commandWords(`cp 'a b' "c\\"d" e\\ f>out;ls|wc $(cat x)`)).toEqual(["cp", "a b", 'c"d', "e f", "out", "ls", "wc", "cat", "x"]);
  });
});

describe("commandPathProblem", () => {
  it.each([
    ["npm test", "."],
    ["ls -la docs", "."],
    ["cat ../README.md", "docs"],
    ["echo hi > /dev/null 2>/dev/stderr", "."],
    ["curl -s https://example.com/a/b --url=https://x.org/y", "."],
    ["git log HEAD~1 a..b", "."],
    ["node --test", "."],
  ])("lets %j (in %j) through", (command, cwd) => {
    expect(commandPathProblem(command, cwd)).toBeNull();
  });

  it.each([
    ["touch /tmp/x", "`/tmp/x` is an absolute path"],
    ["cp a ../../x", "`../../x` climbs out of the workspace with .."],
    ["cat ../../x", "`../../x` climbs out", "docs"],
    ["cd ..; touch x", "`..` climbs out"],
    ["cat ~/.ssh/id_rsa", "`~/.ssh/id_rsa` names a home folder"],
    ["tar -cf out.tar --directory=/etc .", "`--directory=/etc` is an absolute path"],
    ["PATH=/tmp/evil:$PATH npm test", "is an absolute path"],
    ["cat '/etc/passwd'", "`/etc/passwd` is an absolute path"],
    ["echo x>/tmp/y", "`/tmp/y` is an absolute path"],
    ["/bin/sh -c 'rm -rf ~'", "`/bin/sh` is an absolute path"],
  ])("refuses %j", (command, why, cwd = ".") => {
    expect(commandPathProblem(command, cwd)).toMatch(new RegExp(`${why.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}.*: commands run only inside the workspace`));
  });
});

describe("relativePathWords", () => {
  it("keeps the words worth resolving on disk", () => {
    expect(relativePathWords("cat -n link/secret *.md $HOME/x --out=dist/a.js /dev/null")).toEqual(["cat", "link/secret", "dist/a.js"]);
  });
});
