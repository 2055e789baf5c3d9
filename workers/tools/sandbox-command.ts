import { existsSync, lstatSync, readlinkSync, statSync } from "node:fs";
import path from "node:path";
import { findProgram } from "../../lib/sandbox/sandbox-mode";
import { engineOf, sqliteFilePath } from "../../lib/server/store/db/engine";

/** The system folders a sandboxed command sees, read-only (those that exist here). Nothing else of the machine is there. */
export const SYSTEM_FOLDERS = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt"];

/** The home a sandboxed command gets: empty, in its private /tmp. */
export const SANDBOX_HOME = "/tmp/home";

export interface SandboxWords {
  bwrap: string;
  /** The workspace (absolute, real): the one folder it may change. */
  workspace: string;
  /** Where it starts (absolute, inside the workspace). */
  cwd: string;
  network: boolean;
  /** Paths inside the workspace it must not see (the data folder when it lies there). */
  hidden?: readonly string[];
  /** Words run inside, before the command (resource limits). */
  inside?: readonly string[];
  /** The Node.js installation's folder, shown read-only when it lies outside the system folders (npm, npx need it). */
  nodePrefix?: string;
}

const inside = (child: string, parent: string) => child === parent || child.startsWith(parent.endsWith("/") ? parent : `${parent}/`);

let systemWords: string[] | null = null;

/** The system folders as bubblewrap shows them (a symbolic link as itself: `/bin` → `usr/bin`), read once per process. */
function systemFolderWords(): string[] {
  if (systemWords) return systemWords;
  systemWords = [];
  for (const folder of SYSTEM_FOLDERS) {
    let stat;
    try {
      stat = lstatSync(folder);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) systemWords.push("--symlink", readlinkSync(folder), folder);
    else systemWords.push("--ro-bind", folder, folder);
  }
  return systemWords;
}

/**
 * bubblewrap's words for a command: new user, PID, network (unless `network`), IPC, UTS and
 * cgroup namespaces; the system folders read-only; the workspace read-write; a private /tmp with
 * an empty home; /proc of its own PID namespace only; killed with its whole tree when the process
 * that started it dies. The data folder, the server's checkout and its user's home are not there
 * (unless the workspace holds them: then the data folder is covered by an empty one).
 */
export function sandboxWords(options: SandboxWords, command: string): string[] {
  const words = [options.bwrap, "--unshare-all", "--unshare-user", "--die-with-parent", "--new-session"];
  if (options.network) words.push("--share-net");
  words.push(...systemFolderWords());
  if (options.nodePrefix && !SYSTEM_FOLDERS.some((f) => inside(options.nodePrefix!, f))) words.push("--ro-bind", options.nodePrefix, options.nodePrefix);
  // A resolver that lives under /run (systemd-resolved): a command with network access needs it.
  if (options.network && existsSync("/run/systemd/resolve")) words.push("--ro-bind", "/run/systemd/resolve", "/run/systemd/resolve");
  words.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--dir", SANDBOX_HOME, "--setenv", "HOME", SANDBOX_HOME);
  words.push("--bind", options.workspace, options.workspace);
  const covered: string[] = [];
  for (const hidden of options.hidden ?? []) {
    if (hidden === options.workspace || !inside(hidden, options.workspace) || covered.some((c) => inside(hidden, c)) || !existsSync(hidden)) continue;
    if (statSync(hidden).isDirectory()) {
      words.push("--tmpfs", hidden);
      covered.push(hidden);
    } else words.push("--ro-bind", "/dev/null", hidden);
  }
  words.push("--chdir", options.cwd, "--", ...(options.inside ?? []), "/bin/sh", "-c", command);
  return words;
}

/** The folder Node.js is installed in (`…/bin/node` → `…`). */
export const nodePrefix = (execPath = process.execPath) => path.dirname(path.dirname(execPath));

/** An executable of the system's own folders, or null. */
export const systemProgram = (name: string) => findProgram(name, ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]);

/**
 * What a command must not see even when the workspace holds it: the server's data folder (./data:
 * the database, its WAL, the token file, backups), the SQLite database's folder and its files.
 */
export function hiddenFromCommands(env: Record<string, string | undefined> = process.env): string[] {
  const hidden = [path.resolve("data")];
  const url = env.DATABASE_URL;
  try {
    const file = url && engineOf(url) === "sqlite" ? sqliteFilePath(url) : ":memory:";
    // Its files one by one too: its folder may be the workspace itself, which stays.
    if (file !== ":memory:") hidden.push(path.dirname(file), ...["", "-wal", "-shm", "-journal", ".token", ".server.json"].map((end) => file + end));
  } catch {
    // Not a database URL this server would start with.
  }
  return [...new Set(hidden)];
}
