/**
 * What a wide "allow" rule for a command (`npm test *`: "these words, then any further
 * arguments") never spans. A command with any of these is allowed only by an exact rule, and no
 * wider rule is offered for it: an environment assignment, a program that runs another program
 * (a wrapper), a shell or interpreter given code inline, a flag marked dangerous, an argument
 * reaching outside the folder (an absolute path, `..`). The words come
 * from `shellWords`, which already refused operators, substitutions, redirections and newlines.
 */

/** Programs that run what follows them (or code they are given): a wide rule never allows them. */
export const WRAPPERS = new Set([
  "sudo",
  "doas",
  "su",
  "runuser",
  "env",
  "xargs",
  "nohup",
  "timeout",
  "nice",
  "ionice",
  "exec",
  "command",
  "builtin",
  "eval",
  "source",
  ".",
  "npx",
  "pnpx",
  "bunx",
  "time",
  "watch",
  "strace",
  "ltrace",
  "gdb",
  "valgrind",
  "chroot",
  "nsenter",
  "unshare",
  "setsid",
  "stdbuf",
  "flock",
  "script",
  "ssh",
  "busybox",
  "parallel",
  "systemd-run",
  "firejail",
  "unbuffer",
  "fakeroot",
  "then",
  "do",
  // Their "script" is code inline (awk's program, sed's `e` command).
  "awk",
  "gawk",
  "mawk",
  "nawk",
  "sed",
  "gsed",
]);

/** A program's subcommands that run another program: `npm exec`, `git submodule foreach` … */
export const WRAPPER_SUBCOMMANDS: Record<string, readonly string[]> = {
  npm: ["exec", "x"],
  pnpm: ["exec", "dlx"],
  yarn: ["exec", "dlx"],
  bun: ["x", "exec", "eval"],
  deno: ["eval"],
  git: ["submodule", "bisect", "config"],
  docker: ["run", "exec"],
  podman: ["run", "exec"],
  kubectl: ["exec", "run", "debug"],
};

const INTERPRETER_NAMES = new Set([
  "sh",
  "bash",
  "zsh",
  "dash",
  "ksh",
  "mksh",
  "ash",
  "fish",
  "csh",
  "tcsh",
  "node",
  "nodejs",
  "deno",
  "bun",
  "perl",
  "ruby",
  "irb",
  "php",
  "lua",
  "luajit",
  "rscript",
  "r",
  "julia",
  "tclsh",
  "wish",
  "osascript",
  "pwsh",
  "powershell",
  "guile",
  "racket",
  "elixir",
  "iex",
  "erl",
  "groovy",
  "scala",
  "jshell",
  "expect",
  "swift",
  "ghci",
  "runghc",
]);

/** Shells and interpreters (`python3.12`, `pypy3`, `lua5.4` included). */
export function isInterpreter(program: string): boolean {
  const name = program.toLowerCase();
  return INTERPRETER_NAMES.has(name) || /^(python|pypy|lua|perl|ruby|php|node)[0-9.]*$/.test(name);
}

/** An interpreter's flags that give it code inline (or a module to load first). */
const INLINE_CODE_LONG = new Set(["--eval", "--print", "--command", "--exec", "--require", "--import", "--loader", "--experimental-loader", "--run"]);
const INLINE_CODE_SHORT = new Set(["c", "e", "E", "p", "r", "x"]);
const INLINE_CODE_WORDS = new Set(["eval", "exec", "-"]);

/** Long flags no wide rule spans, whatever the program (`--name` or `--name=value`). */
export const DANGEROUS_LONG_FLAGS = new Set([
  "--force",
  "--force-with-lease",
  "--force-if-includes",
  "--mirror",
  "--delete",
  "--prune",
  "--script-shell",
  "--exec",
  "--exec-path",
  "--upload-pack",
  "--receive-pack",
  "--eval",
  "--require",
  "--import",
  "--loader",
  "--experimental-loader",
  "--hard",
  "--no-verify",
  "--prefix",
  "--registry",
  "--unsafe-perm",
  "--userconfig",
  "--globalconfig",
  "--node-options",
  "--global",
  "--to-command",
  "--checkpoint-action",
  "--use-compress-program",
  "--rsh",
  "--extcmd",
  "--config-env",
  "--git-dir",
  "--work-tree",
  "--privileged",
  "--no-preserve-root",
  "--recursive",
  "--upload-file",
  "--config",
  "--directory",
  "--manifest-path",
  "--open-files-in-pager",
]);

/**
 * Whether a long flag names one of these: itself, or an abbreviation of one (git and npm take any
 * unambiguous prefix: `--forc` is `--force`), `_` read as `-` (`--script_shell`).
 */
function namesOneOf(flag: string, names: Iterable<string>): boolean {
  const name = flag.replaceAll("_", "-");
  for (const d of names) if (d === name || (name.length >= 3 && d.startsWith(name)) || (d === "--config" && name.startsWith("--config."))) return true;
  return false;
}

/** Per program (or "program subcommand"): its dangerous flags, long and short (a short one counts inside a cluster: `-fd`). */
export const DANGEROUS_FLAGS: Record<string, { long?: readonly string[]; short?: string }> = {
  "git push": { long: ["--all", "--tags"], short: "fdo" },
  "git reset": { long: ["--merge", "--keep"] },
  "git clean": { short: "fxX" },
  "git checkout": { long: ["--discard-changes", "--overwrite-ignore", "--ours", "--theirs"], short: "fB" },
  "git switch": { long: ["--discard-changes"], short: "fC" },
  "git branch": { short: "dDfmM" },
  "git tag": { short: "df" },
  "git commit": { long: ["--amend"], short: "n" },
  "git rebase": { short: "x" },
  "git fetch": { short: "u" },
  "git pull": { short: "u" },
  "git clone": { long: ["--config", "--template", "--recurse-submodules"], short: "cu" },
  "git stash": {},
  npm: { short: "fg" },
  pnpm: { short: "fg" },
  yarn: {},
  rm: { short: "rRf" },
  cp: { short: "rRf" },
  mv: { short: "f" },
  find: { long: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"] },
  "git grep": { short: "O" },
  "git difftool": { long: ["--tool"], short: "xt" },
  "git mergetool": { long: ["--tool"], short: "t" },
  tar: { short: "IC" },
  go: { short: "C" },
  rsync: { short: "e" },
  curl: { long: ["--output", "--config", "--remote-name"], short: "oOKTd" },
  wget: { long: ["--output-document", "--post-file", "--execute"], short: "Oe" },
  docker: { long: ["--volume", "--mount", "--pid", "--network"], short: "v" },
  make: { long: ["--eval", "--file", "--makefile"], short: "efC" },
};

/** Programs with subcommands: their wide rule is the program and its subcommand (`npm test *`), never the program alone. */
export const SUBCOMMAND_PROGRAMS = new Set([
  "npm",
  "pnpm",
  "yarn",
  "bun",
  "git",
  "cargo",
  "go",
  "docker",
  "podman",
  "kubectl",
  "helm",
  "make",
  "gh",
  "pip",
  "pip3",
  "poetry",
  "uv",
  "deno",
  "dotnet",
  "terraform",
  "brew",
  "apt",
  "apt-get",
  "systemctl",
  "rustup",
  "nx",
  "turbo",
  "composer",
  "bundle",
  "rake",
  "mix",
  "flutter",
  "dart",
  "aws",
  "gcloud",
  "az",
  "conda",
  "hg",
  "svn",
  "mvn",
  "gradle",
]);

/** Subcommands whose next word names what they run: `npm run build *`, `docker compose up *`. */
const SECOND_LEVEL: Record<string, readonly string[]> = {
  npm: ["run", "run-script"],
  pnpm: ["run"],
  yarn: ["run"],
  bun: ["run"],
  docker: ["compose"],
  podman: ["compose"],
};

/** Programs never offered a wider rule, however plain the call: any further argument could destroy or send anything. */
export const NO_WIDER_RULE = new Set([
  "rm",
  "rmdir",
  "shred",
  "dd",
  "mkfs",
  "chmod",
  "chown",
  "chgrp",
  "truncate",
  "kill",
  "killall",
  "pkill",
  "reboot",
  "shutdown",
  "curl",
  "wget",
  "scp",
  "nc",
  "ncat",
  "socat",
]);

/** The program's name as a rule compares it: its last path part (`/usr/bin/git` is `git`). */
export const programName = (word: string) => word.slice(word.lastIndexOf("/") + 1);

const ENV_ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Programs that run code besides their own (packages' scripts, test runners, builds): interpreters count too (isInterpreter). */
const CODE_RUNNERS = new Set(["npm", "npx", "pnpm", "pnpx", "yarn", "bunx", "corepack", "make", "gmake", "tsx", "ts-node", "vitest", "jest", "mocha", "pytest", "tox", "nox"]);

/** Long flags by which such a program loads or runs other code, opens a port or reads another environment: what each does, for the card. */
const CODE_LOADING_LONG: Record<string, string> = {
  "--require": "loads other code",
  "--import": "loads other code",
  "--loader": "loads other code",
  "--experimental-loader": "loads other code",
  "--test-reporter": "loads other code",
  "--test-reporter-destination": "writes where the command chooses",
  "--eval": "runs code given inline",
  "--print": "runs code given inline",
  "--shell": "runs another program",
  "--script-shell": "runs another program",
  "--node-options": "passes Node.js options that may load other code",
  "--openssl-config": "loads other code",
  "--snapshot-blob": "loads other code",
  "--env-file": "reads another environment",
  "--env-file-if-exists": "reads another environment",
  "--prefix": "runs another package's code",
  "--workspaces": "runs other packages' code",
  "--workspace": "runs another package's code",
  "--include-workspace-root": "runs other packages' code",
  "--userconfig": "reads another configuration",
  "--globalconfig": "reads another configuration",
  "--rootdir": "reads another configuration",
  "--config": "reads another configuration",
  "--plugin": "loads other code",
  "--setup-files": "loads other code",
};

/** The flags above that are npm's settings, which npm also reads abbreviated. */
const NPM_SETTINGS = new Set(["--prefix", "--workspaces", "--workspace", "--include-workspace-root", "--userconfig", "--globalconfig", "--script-shell", "--node-options", "--shell"]);

/** Short flags by which such a program loads or runs code (`-r` require, `-e` eval, `-p` print or plugin, `-c` command, `-w` workspace). */
const CODE_LOADING_SHORT: Record<string, string> = { r: "loads other code", e: "runs code given inline", p: "loads or runs other code", c: "runs code given inline", w: "runs another package's code" };

/**
 * The argument by which a program that runs other code (node, npm, a test runner, make …) would
 * load or run more than its own, open a port or read another environment (`-r ./pre.cjs`,
 * `--test-reporter=./rep.mjs`, `--inspect=0.0.0.0:9229`, `--env-file=…`, `NODE_OPTIONS=…`, make's
 * `CC=…`), with what it does; null when it has none. Read anywhere in the words, `--` included:
 * `npm test -- -r x` hands `-r x` to the test script.
 */
export function codeLoadingArgument(words: readonly string[]): { argument: string; does: string } | null {
  if (words.length === 0) return null;
  const program = programName(words[0]!).toLowerCase();
  if (!CODE_RUNNERS.has(program) && !isInterpreter(program)) return null;
  for (const word of words.slice(1)) {
    if (/^NODE_OPTIONS=|^npm_config_/i.test(word)) return { argument: word, does: "passes options that may load other code" };
    if ((program === "make" || program === "gmake") && ENV_ASSIGNMENT.test(word)) return { argument: word, does: "sets a variable its recipes may run" };
    if (word.startsWith("--") && word !== "--") {
      const name = word.split("=")[0]!.replaceAll("_", "-");
      if (/^--inspect/.test(name) || /^--debug/.test(name)) return { argument: word, does: "opens a debugging port" };
      // npm takes any unambiguous beginning of its own settings' names (`--work` is `--workspaces`); Node.js does not.
      const found = Object.keys(CODE_LOADING_LONG).find((flag) => flag === name || (NPM_SETTINGS.has(flag) && namesOneOf(name, [flag])));
      if (found) return { argument: word, does: CODE_LOADING_LONG[found]! };
    } else if (/^-[A-Za-z0-9]+/.test(word)) {
      const letters = word.split("=")[0]!.slice(1);
      for (const letter of letters) if (CODE_LOADING_SHORT[letter]) return { argument: word, does: CODE_LOADING_SHORT[letter] };
    }
  }
  return null;
}

/** Why a wide rule may not span this command (its words), or null when one may. */
/** What the built-in rules deny to the path tools (a `.git` folder, `.env` files, any case): a wide command rule never spans it either. */
const PROTECTED_PATH = /(^|\/)(\.git(\/|$)|\.env)/i;

export function wideRisk(words: readonly string[]): string | null {
  if (words.length === 0) return "no command";
  if (ENV_ASSIGNMENT.test(words[0]!)) return "an environment assignment";
  const program = programName(words[0]!);
  if (WRAPPERS.has(program.toLowerCase())) return `\`${program}\` runs another program`;
  const sub = subcommandOf(program, words);
  if (sub && WRAPPER_SUBCOMMANDS[program]?.includes(sub)) return `\`${program} ${sub}\` runs another program`;
  if (program === "git" && words[1]?.startsWith("-")) return "an option of `git` itself (`git -c …`, `git -C …`)";
  const interpreter = isInterpreter(program);
  const table = [DANGEROUS_FLAGS[program], sub ? DANGEROUS_FLAGS[`${program} ${sub}`] : undefined].filter((t) => t !== undefined);
  for (const word of words.slice(1)) {
    const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
    if (value.startsWith("/") || /(^|\/)\.\.(\/|$)/.test(value)) return `the argument \`${word}\`, which reaches outside the folder`;
    if (PROTECTED_PATH.test(value)) return `the argument \`${word}\`, a file the path tools may never touch (\`.git\`, \`.env\`)`;
    if (interpreter && INLINE_CODE_WORDS.has(word)) return `\`${program} ${word}\` runs code given inline`;
    if (word.startsWith("--") && word !== "--") {
      const name = word.split("=")[0]!;
      if (interpreter && namesOneOf(name, INLINE_CODE_LONG)) return `\`${program} ${name}\` runs code given inline`;
      if (namesOneOf(name, DANGEROUS_LONG_FLAGS) || table.some((t) => namesOneOf(name, t.long ?? []))) return `the flag \`${name}\``;
    } else if (word.startsWith("-") && word.length > 1) {
      const name = word.split("=")[0]!;
      if (table.some((t) => t.long?.includes(name))) return `the flag \`${name}\``;
      const letters = /^-[A-Za-z0-9]+$/.test(name) ? name.slice(1) : "";
      for (const letter of letters) {
        if (interpreter && INLINE_CODE_SHORT.has(letter)) return `\`${program} -${letter}\` runs code given inline`;
        if (table.some((t) => t.short?.includes(letter))) return `the flag \`-${letter}\``;
      }
    } else if (program === "git" && sub === "push" && (word.startsWith("+") || word.startsWith(":") || word.includes(":+"))) {
      return `the refspec \`${word}\` (a forced push or a deletion)`;
    }
  }
  const loading = codeLoadingArgument(words);
  return loading ? `the argument \`${loading.argument}\`, which ${loading.does}` : null;
}

/** The subcommand word of a program with subcommands (its first word after the program), or null. */
function subcommandOf(program: string, words: readonly string[]): string | null {
  if (!SUBCOMMAND_PROGRAMS.has(program)) return null;
  const word = words[1];
  return word !== undefined && !word.startsWith("-") ? word : null;
}

/**
 * The words a wider rule for this command keeps: the program and its subcommand (`npm test`,
 * `npm run build`) for a program with subcommands, else the program alone (`ls`); null when no
 * wider rule makes sense or is safe (a risk, a shell or interpreter — any further argument would be
 * any program —, a destructive program, a program with subcommands called without one).
 */
export function widerWords(words: readonly string[]): string[] | null {
  if (wideRisk(words) !== null) return null;
  const program = programName(words[0]!);
  if (isInterpreter(program) || NO_WIDER_RULE.has(program.toLowerCase())) return null;
  if (!SUBCOMMAND_PROGRAMS.has(program)) return [words[0]!];
  const sub = subcommandOf(program, words);
  if (sub === null) return null;
  if (!SECOND_LEVEL[program]?.includes(sub)) return [words[0]!, sub];
  const target = words[2];
  return target !== undefined && !target.startsWith("-") ? [words[0]!, sub, target] : null;
}

/** Programs (or "program subcommand") that run code from the workspace: its tests, scripts, build or sources. */
const RUNS_WORKSPACE_CODE = new Set([
  "npm test",
  "npm run",
  "npm run-script",
  "npm start",
  "npm t",
  "pnpm test",
  "pnpm run",
  "pnpm start",
  "yarn test",
  "yarn run",
  "yarn start",
  "bun test",
  "bun run",
  "make",
  "gmake",
  "pytest",
  "tox",
  "vitest",
  "jest",
  "mocha",
  "tsx",
  "ts-node",
  "cargo test",
  "cargo run",
  "cargo build",
  "go test",
  "go run",
  "go generate",
  "mvn",
  "gradle",
  "rake",
  "bundle exec",
]);

/**
 * Whether a command runs code from the workspace (a test runner, a build, a script, an
 * interpreter given a file): whatever else may change the workspace then runs too. Its card says so.
 */
export function runsWorkspaceCode(words: readonly string[]): boolean {
  if (words.length === 0) return false;
  const program = programName(words[0]!).toLowerCase();
  if (RUNS_WORKSPACE_CODE.has(program) || (words[1] !== undefined && RUNS_WORKSPACE_CODE.has(`${program} ${words[1]}`))) return true;
  return isInterpreter(program) && words.length > 1;
}
