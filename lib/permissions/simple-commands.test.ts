import { describe, expect, it } from "vitest";
import { readRuleWords, ruleWordsMatch } from "./command-rule-words";
import { simpleCommands } from "./simple-commands";

describe("the simple commands of a shell line", () => {
  it.each([
    ["rm  -rf /", [["rm", "-rf", "/"]]],
    ["r''m -rf /", [["rm", "-rf", "/"]]],
    ['"rm" -r -f /', [["rm", "-r", "-f", "/"]]],
    ["\\rm -rf /", [["rm", "-rf", "/"]]],
    ["rm -rf \\\n /", [["rm", "-rf", "/"]]],
    ["/bin/rm -rf /", [["rm", "-rf", "/"]]],
    ["command rm -rf /", [["rm", "-rf", "/"]]],
    ["env -i FOO=1 rm -rf /", [["rm", "-rf", "/"]]],
    ["nice -n 5 rm -rf /", [["rm", "-rf", "/"]]],
    ["busybox rm -rf /", [["rm", "-rf", "/"]]],
    ["timeout -s KILL 5 rm -rf /", [["rm", "-rf", "/"]]],
    ["sudo -u root rm -rf /", [["rm", "-rf", "/"]]],
    ["FOO=1 rm -rf / > /dev/null 2>&1", [["rm", "-rf", "/"]]],
    ["true && rm -rf /", [["true"], ["rm", "-rf", "/"]]],
    ["ls | xargs rm -rf", [["ls"], ["rm", "-rf"]]],
    // A substitution's value is not known before it runs: an empty word stands for it.
    [
      "echo $(rm -rf /)",
      [
        ["echo", ""],
        ["rm", "-rf", "/"],
      ],
    ],
    [
      "echo `rm -rf /`",
      [
        ["echo", ""],
        ["rm", "-rf", "/"],
      ],
    ],
    [
      "sh -c 'rm -rf /'",
      [
        ["sh", "-c", "rm -rf /"],
        ["rm", "-rf", "/"],
      ],
    ],
    ["env -S 'rm -rf /'", [["rm", "-rf", "/"]]],
    ["if true; then rm -rf /; fi", [["true"], ["rm", "-rf", "/"]]],
    ["ls # rm -rf /", [["ls"]]],
  ])("%j", (line, commands) => {
    expect(simpleCommands(line)).toEqual(commands);
  });
});

describe("a deny or ask rule read as words", () => {
  const denies = (pattern: string, line: string) => {
    const rule = readRuleWords(pattern);
    return rule !== null && simpleCommands(line).some((command) => ruleWordsMatch(rule, command));
  };

  it.each([
    "rm -rf /",
    "rm  -rf /",
    "rm -r -f /",
    "rm -fr /",
    "rm -f -r x",
    "rm -rfv /",
    "rm --recursive --force /",
    "r''m -rf /",
    "/bin/rm -rf /",
    "command rm -rf /",
    "env rm -rf /",
    "nice rm -rf /",
    "busybox rm -rf /",
    "ls; rm -rf /",
  ])("`rm -rf*` catches %j", (line) => {
    expect(denies("rm -rf*", line)).toBe(true);
  });

  it.each(["rm -r x", "rm x", "rmdir x", "echo rm -rf /", "ls -rf"])("`rm -rf*` leaves %j", (line) => {
    expect(denies("rm -rf*", line)).toBe(false);
  });

  it("reads the rest of a rule's words in order, exactly or (with `*`) first", () => {
    expect(denies("git push --force*", "git push origin main --force-with-lease")).toBe(true);
    expect(denies("git push --force*", "git  push -f origin")).toBe(true);
    expect(denies("git push --force*", "git push origin main")).toBe(false);
    expect(denies("curl *", "/usr/bin/curl -s http://x")).toBe(true);
    expect(denies("npm publish", "npm  publish")).toBe(true);
    expect(denies("npm publish", "npm publish --dry-run")).toBe(true);
    expect(denies("npm publish", "npm publish other")).toBe(false);
    expect(denies("rm*", "rmdir x")).toBe(true);
  });

  it("is not read as words when its `*` is anywhere but the end, or it escapes a character", () => {
    expect(readRuleWords("git push*--force*")).toBeNull();
    expect(readRuleWords("rm \\*")).toBeNull();
    expect(readRuleWords("*")).toBeNull();
  });
});
