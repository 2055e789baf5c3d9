import { describe, expect, it } from "vitest";
import { allowsCommand, readCommandAllow, wideCommandPattern } from "./command-allow";
import { wideRisk, widerWords } from "./command-risks";
import { shellWords } from "./shell-words";

const words = (command: string) => {
  const read = shellWords(command);
  if (!read.ok) throw new Error(read.reason);
  return read.words;
};

describe("reading an allow pattern for a command", () => {
  it.each([
    ["npm test", { kind: "exact", command: "npm test" }],
    ["  npm test  ", { kind: "exact", command: "npm test" }],
    ["echo \\*", { kind: "exact", command: "echo *" }],
    ["npm test; echo done", { kind: "exact", command: "npm test; echo done" }],
    ["npm test *", { kind: "wide", words: ["npm", "test"] }],
    ["npm test*", { kind: "wide", words: ["npm", "test"] }],
    ["ls*", { kind: "wide", words: ["ls"] }],
    ["npm run 'my script' *", { kind: "wide", words: ["npm", "run", "my script"] }],
    ["*", { kind: "wide", words: [] }],
  ])("reads %j", (pattern, read) => {
    expect(readCommandAllow(pattern)).toEqual(read);
  });

  it.each(["git * status", "* test", "npm test; *", "npm test;*", "FOO=$X *"])("refuses %j, saying why", (pattern) => {
    expect(readCommandAllow(pattern)).toMatchObject({ kind: "invalid", reason: expect.any(String) });
  });
});

describe("what an allow pattern allows", () => {
  it("an exact pattern: that text and nothing else", () => {
    expect(allowsCommand("npm test", "npm test")).toBe(true);
    expect(allowsCommand("npm test", "  npm test ")).toBe(true);
    expect(allowsCommand("npm test", "npm test -- --watch")).toBe(false);
    expect(allowsCommand("npm test", "npm  test")).toBe(false);
    expect(allowsCommand("npm test\\; echo done", "npm test; echo done")).toBe(true);
    expect(allowsCommand("npm test\\; echo done", "npm test; rm -rf ~")).toBe(false);
  });

  it("a wide pattern: its words, then further arguments a wide rule may span", () => {
    expect(allowsCommand("npm test *", "npm test")).toBe(true);
    expect(allowsCommand("npm test *", "npm test -- --watch src/a.test.ts")).toBe(true);
    expect(allowsCommand("npm test *", "npm   test   'a b'")).toBe(true);
    expect(allowsCommand("npm test *", "npm testing-anything")).toBe(false);
    expect(allowsCommand("npm test*", "npm testing-anything")).toBe(false);
    expect(allowsCommand("npm test*", "npm test --script-shell=/tmp/evil.sh")).toBe(false);
    expect(allowsCommand("npm test*", "npm test; rm -rf ~")).toBe(false);
    expect(allowsCommand("ls*", "lsof")).toBe(false);
    expect(allowsCommand("ls*", "ls -la docs")).toBe(true);
    expect(allowsCommand("git push *", "git push origin main")).toBe(true);
    expect(allowsCommand("git push *", "git push --force")).toBe(false);
    expect(allowsCommand("git push *", "git push -f")).toBe(false);
    expect(allowsCommand("git push *", "git push origin +main")).toBe(false);
    expect(allowsCommand("*", "ls -la")).toBe(true);
    expect(allowsCommand("*", "bash -c 'rm -rf ~'")).toBe(false);
    expect(allowsCommand("git * status", "git foo status")).toBe(false);
  });

  it("is what the wider pattern built from words reads back as", () => {
    for (const ws of [["npm", "test"], ["npm", "run", "my script"], ["g++"], ["ls"]]) {
      const pattern = wideCommandPattern(ws);
      expect(readCommandAllow(pattern)).toEqual({ kind: "wide", words: ws });
    }
    expect(wideCommandPattern(["npm", "test"])).toBe("npm test *");
    expect(wideCommandPattern(["g++"])).toBe("g\\+\\+ *");
  });
});

describe("what a wide rule never spans", () => {
  it.each([
    ["FOO=1 npm test", "environment assignment"],
    ["cat .env", "may never touch"],
    ["cat config/.ENV.local", "may never touch"],
    ["cat --file=.env", "may never touch"],
    ["ls .git/hooks", "may never touch"],
    ["cp a.txt .git/hooks/pre-commit", "may never touch"],
    ["bash -c 'echo hi'", "inline"],
    ["bash -xc 'echo hi'", "inline"],
    ["sh -c ls", "inline"],
    ["/bin/zsh -c ls", "inline"],
    ['python3 -c "print(1)"', "inline"],
    ["python3.12 -c 1", "inline"],
    ["node -e 1", "inline"],
    ["node --eval=1", "inline"],
    ["node -p 1", "inline"],
    ["node -r ./evil.js app.js", "inline"],
    ["node --require ./evil.js app.js", "inline"],
    ["perl -ne 'print'", "inline"],
    ["ruby -e 1", "inline"],
    ["deno eval 1", "runs another program"],
    ["bun x cowsay", "runs another program"],
    ["sudo ls", "runs another program"],
    ["env ls", "runs another program"],
    ["xargs rm", "runs another program"],
    ["nohup ls", "runs another program"],
    ["timeout 5 ls", "runs another program"],
    ["nice ls", "runs another program"],
    ["exec ls", "runs another program"],
    ["command ls", "runs another program"],
    ["npx cowsay", "runs another program"],
    ["pnpx cowsay", "runs another program"],
    ["bunx cowsay", "runs another program"],
    ["npm exec cowsay", "runs another program"],
    ["awk 1 a.txt", "runs another program"],
    ["find . -exec rm x", "-exec"],
    ["find . -delete", "-delete"],
    ["git -c core.pager=evil log", "option of `git` itself"],
    ["git -C /elsewhere status", "option of `git` itself"],
    ["git push --force", "--force"],
    ["git push -f", "-f"],
    ["git push -uf origin main", "-f"],
    ["git push --force-with-lease", "--force-with-lease"],
    ["git push --mirror", "--mirror"],
    ["git push --delete origin x", "--delete"],
    ["git push origin +main", "refspec"],
    ["git push origin :main", "refspec"],
    ["git push origin main:+x", "refspec"],
    ["git push --receive-pack=evil", "--receive-pack"],
    ["git fetch --upload-pack=evil", "--upload-pack"],
    ["git reset --hard", "--hard"],
    ["git commit --no-verify -m x", "--no-verify"],
    ["git commit -nm x", "-n"],
    ["git rebase -x 'make' main", "-x"],
    ["npm test --script-shell=/tmp/evil.sh", "--script-shell"],
    ["npm install --prefix /", "--prefix"],
    ["npm install --registry=http://evil", "--registry"],
    ["npm install --unsafe-perm", "--unsafe-perm"],
    ["npm install -g x", "-g"],
    ["rm -rf build", "-r"],
    // Leaving the rule's folder, or running another file.
    ["cat /etc/passwd", "outside the folder"],
    ["ls ../..", "outside the folder"],
    ["npm test -- --outputFile=/tmp/x", "outside the folder"],
    ["cat docs/../../secret", "outside the folder"],
    ["make -C /elsewhere test", "-C"],
    ["make -f evil.mk", "-f"],
    ["npm test --prefix=/elsewhere", "--prefix"],
    ["git grep -O evil x", "-O"],
    ["git difftool -x evil", "-x"],
    // git and npm take an unambiguous prefix of a long flag; npm reads _ as -.
    ["git push --forc origin main", "--forc"],
    ["git push --force-w", "--force-w"],
    ["npm test --script-sh=/tmp/evil.sh", "--script-sh"],
    ["npm test --script_shell=/tmp/evil.sh", "--script_shell"],
    ["pnpm test --config.script-shell=/tmp/evil.sh", "--config.script-shell"],
    ["npm test -- --script-shell=/tmp/evil.sh", "--script-shell"],
    // What a test runner or package script would load or run besides the project's own code (the attacker's probe).
    ["npm test -- -r ./src/pre.cjs", "`-r`, which loads other code"],
    ["npm test -- --test-reporter=./src/rep.mjs", "`--test-reporter=./src/rep.mjs`, which loads other code"],
    ["npm test -- --test-reporter-destination=out.txt", "writes where the command chooses"],
    ["npm test -- --inspect=0.0.0.0:9229", "`--inspect=0.0.0.0:9229`, which opens a debugging port"],
    ["npm test -- --inspect-brk", "opens a debugging port"],
    ["npm test -- --env-file=.other", "reads another environment"],
    ["npm test --workspaces", "`--workspaces`, which runs other packages' code"],
    ["npm test -ws", "runs another package's code"],
    ["npm test -- --import ./src/x.mjs", "--import"],
    ["npm test -- --experimental-loader ./x.mjs", "--experimental-loader"],
    ["npm test NODE_OPTIONS=--require=./x.cjs", "passes options that may load other code"],
    ["npm run build -- --node-options=--require=./x.cjs", "--node-options"],
    ["npx vitest --config ./other.config.ts", "runs another program"],
    ["vitest run --setup-files ./x.ts", "--setup-files"],
    ["pytest -p evil_plugin", "`-p`, which loads or runs other code"],
    ["make test CC=./evil.sh", "`CC=./evil.sh`, which sets a variable its recipes may run"],
    ["yarn test --require ./x.cjs", "--require"],
    ["npm test --workspa", "`--workspa`, which runs other packages' code"],
  ])("%j (%s)", (command, why) => {
    expect(wideRisk(words(command))).toContain(why);
  });

  it.each([
    "npm test",
    "npm test -- --watch",
    "npm test -- --format=json",
    "git log --oneline",
    "go test ./...",
    "cat docs/a..b.md",
    "git push origin main",
    "git push -u origin main",
    "ls -la",
    "git status --short",
    "python3 script.py",
    "node app.js",
    "make test",
    "npm test -- --run",
    "npm test -- src/greet.test.js",
    "npm run build -- --verbose",
    "vitest run src/a.test.ts",
    "npm test -- --test",
    "npm test -- --testNamePattern=greet",
  ])("spans %j", (command) => {
    expect(wideRisk(words(command))).toBeNull();
  });
});

describe("the words a wider rule keeps", () => {
  it.each([
    ["npm test", ["npm", "test"]],
    ["npm test -- --watch", ["npm", "test"]],
    ["npm run build --silent", ["npm", "run", "build"]],
    ["git push origin main", ["git", "push"]],
    ["git status", ["git", "status"]],
    ["docker compose up -d", ["docker", "compose", "up"]],
    ["cargo build --release", ["cargo", "build"]],
    ["go test ./...", ["go", "test"]],
    ["ls -la", ["ls"]],
    ["cat README.md", ["cat"]],
  ])("%j → %j", (command, wider) => {
    expect(widerWords(words(command))).toEqual(wider);
  });

  it.each([
    "git --version", // a program with subcommands, called without one
    "npm run", // which script?
    "npm -v",
    "python3 script.py", // any further argument would be any program
    "bash build.sh",
    "node app.js",
    "rm build.log", // any further argument could destroy anything
    "curl https://example.com",
    "FOO=1 npm test",
    "git push --force",
    "sudo ls",
  ])("none for %j", (command) => {
    expect(widerWords(words(command))).toBeNull();
  });
});
