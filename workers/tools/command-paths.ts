import path from "node:path";

/**
 * The words of a command that name paths outside the workspace: absolute paths (other than a few
 * harmless devices), `~` (a home folder), and relative paths whose `..` climb out of the
 * workspace from the folder the command runs in. A best effort on the command's text: a program
 * can still reach anywhere by its own logic (which is why every command asks by default).
 */

/** Absolute paths a command may name: devices that are neither files nor secrets. */
const HARMLESS = new Set(["/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/tty"]);

/** Characters that end a word in sh: blanks and operators. */
const OPERATOR = /[\s;&|<>()`]/;

/**
 * The words of a command as sh would split them, quotes removed (good enough to find paths: no
 * expansion is done; `$(…)` and backticks are split like operators).
 */
export function commandWords(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  const end = () => {
    if (inWord) words.push(word);
    word = "";
    inWord = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i]!;
    if (c === "'") {
      const close = command.indexOf("'", i + 1);
      word += command.slice(i + 1, close < 0 ? command.length : close);
      inWord = true;
      i = close < 0 ? command.length : close;
    } else if (c === '"') {
      i++;
      while (i < command.length && command[i] !== '"') {
        if (command[i] === "\\" && i + 1 < command.length) i++;
        word += command[i];
        i++;
      }
      inWord = true;
    } else if (c === "\\" && i + 1 < command.length) {
      word += command[++i];
      inWord = true;
    } else if (c === "$" && command[i + 1] === "(") {
      end();
      i++;
    } else if (OPERATOR.test(c)) {
      end();
    } else {
      word += c;
      inWord = true;
    }
  }
  end();
  return words;
}

/**
 * The parts of a word that may be paths: the word, what follows `=` (`--out=/x`, `VAR=/x`), and
 * each part of a `:` list (`PATH=/x:/y`). URLs are not paths of this machine.
 */
function candidates(word: string): string[] {
  const url = (p: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(p);
  const parts = [word];
  const eq = word.indexOf("=");
  if (eq >= 0) parts.push(word.slice(eq + 1));
  const out: string[] = [];
  for (const p of parts) {
    if (url(p)) continue;
    out.push(p);
    if (p.includes(":") && !p.includes("://")) out.push(...p.split(":"));
  }
  return out.filter(Boolean);
}

/**
 * Why the command may not run (a sentence for the model), or null. `cwd` is the folder it runs
 * in, relative to the workspace (already checked to be inside it).
 */
export function commandPathProblem(command: string, cwd = "."): string | null {
  for (const word of commandWords(command)) {
    for (const part of candidates(word)) {
      if (part.startsWith("~")) return refuse(word, "names a home folder");
      if (part.startsWith("/")) {
        if (!HARMLESS.has(part)) return refuse(word, "is an absolute path");
        continue;
      }
      if (part.includes("..") && climbsOut(cwd, part)) return refuse(word, "climbs out of the workspace with ..");
    }
  }
  return null;
}

/** Whether a relative path, taken from `cwd` (relative to the workspace), leads outside it. */
export function climbsOut(cwd: string, relative: string): boolean {
  const joined = path.posix.normalize(path.posix.join(cwd, relative));
  return joined === ".." || joined.startsWith("../");
}

const refuse = (word: string, why: string) => `\`${word.length > 200 ? `${word.slice(0, 200)}…` : word}\` ${why}: commands run only inside the workspace, with paths relative to it.`;

/** The words worth resolving on disk (relative, no expansion or glob characters): a symlink among them may lead out. */
export function relativePathWords(command: string): string[] {
  const out = new Set<string>();
  for (const word of commandWords(command)) {
    for (const part of candidates(word)) {
      if (part.startsWith("-") || part.startsWith("/") || part.startsWith("~") || /[$*?[\]{}\0]/.test(part)) continue;
      out.add(part);
    }
  }
  return [...out].slice(0, 200);
}
