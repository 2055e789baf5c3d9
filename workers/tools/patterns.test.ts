import { describe, expect, it } from "vitest";
import { commandAlwaysOptions, pathAlwaysOptions } from "./patterns";

describe("Allow always for a command", () => {
  it("offers exactly the call, in its folder, then the program and its subcommand with any further arguments", () => {
    expect(commandAlwaysOptions("  npm test -- --watch ", ".")).toEqual([
      { pattern: "npm test -- --watch", cwd: ".", label: "`npm test -- --watch` exactly, in the workspace's top folder" },
      { pattern: "npm test *", cwd: ".", label: "`npm test` with any further arguments, in the workspace's top folder" },
    ]);
    expect(commandAlwaysOptions("ls -la", "./docs/")).toEqual([
      { pattern: "ls -la", cwd: "docs", label: "`ls -la` exactly, in `docs`" },
      { pattern: "ls *", cwd: "docs", label: "`ls` with any further arguments, in `docs`" },
    ]);
    expect(commandAlwaysOptions("npm run 'my build'", ".")[1]).toMatchObject({
      pattern: "npm run 'my build' *",
      label: "`npm run 'my build'` with any further arguments, in the workspace's top folder",
    });
    expect(commandAlwaysOptions("echo [a]*", ".")).toEqual([{ pattern: "echo \\[a\\]\\*", cwd: ".", label: "`echo [a]*` exactly, in the workspace's top folder" }]);
  });

  it.each([
    "npm test; echo done",
    "bash -c 'echo hi'",
    'python3 -c "print(1)"',
    "FOO=1 npm test",
    "git push --force",
    "git push origin +main",
    "sudo ls",
    "npx cowsay",
    "find . -exec rm x",
    "git -c a=b status",
    "npm test --script-shell=/tmp/evil.sh",
    "python3 script.py",
    "rm build.log",
    "git --version",
    "ls *.md",
  ])("offers only exactly %j", (command) => {
    expect(commandAlwaysOptions(command, ".").map((o) => o.pattern)).toHaveLength(1);
  });

  it("offers nothing for a command too long for a pattern", () => {
    expect(commandAlwaysOptions(`echo ${"*".repeat(500)}`, ".")).toEqual([]);
  });
});

describe("Allow always for a path", () => {
  it.each([
    [
      "docs/changelog.md",
      [
        ["docs/changelog.md", "`docs/changelog.md` exactly"],
        ["docs/**", "any file under `docs/`"],
      ],
    ],
    [
      "docs/notes/2024/a.md",
      [
        ["docs/notes/2024/a.md", "`docs/notes/2024/a.md` exactly"],
        ["docs/notes/2024/**", "any file under `docs/notes/2024/`"],
      ],
    ],
    ["README.md", [["README.md", "`README.md` exactly"]]],
    [
      "docs/[draft]/a.md",
      [
        ["docs/\\[draft\\]/a.md", "`docs/[draft]/a.md` exactly"],
        ["docs/\\[draft\\]/**", "any file under `docs/[draft]/`"],
      ],
    ],
    [".git/hooks/pre-commit", [[".git/hooks/pre-commit", "`.git/hooks/pre-commit` exactly"]]],
    ["sub/.GIT/config", [["sub/.GIT/config", "`sub/.GIT/config` exactly"]]],
  ])("%j: exactly it, then its folder unless it is the top or a denied one", (p, options) => {
    expect(pathAlwaysOptions(p).map((o) => [o.pattern, o.label])).toEqual(options);
  });
});
