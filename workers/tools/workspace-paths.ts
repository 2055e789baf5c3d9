import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";

/**
 * Paths the tools touch: every one is resolved with realpath (symlinks included; for a path that
 * does not exist yet, its nearest existing parent) and must stay inside the workspace, itself
 * resolved by realpath. Tools resolve again right before they act: a symlink swapped in after the
 * approval is caught then.
 */

/** A path a tool may not use: its message says why, for the person or the model to read. */
export class PathRefused extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
    this.name = "PathRefused";
  }
}

/** The workspace folder the tools work in: PARLEY_WORKSPACE (the server sets it for its workers), else ./workspace. */
export function workspaceFolder(env: Record<string, string | undefined> = process.env): string {
  return path.resolve(env.PARLEY_WORKSPACE?.trim() || "workspace");
}

/** A path relative to the workspace, normalised (`./docs//a.md` → `docs/a.md`): not absolute, not climbing out with `..`; `what` names it in errors. */
function relativePathSchema(what: "path" | "folder") {
  return z
    .string()
    .trim()
    .min(1, `A ${what} may not be empty`)
    .max(1_000)
    .refine((p) => !p.includes("\0"), `a ${what} may not contain a NUL character`)
    .transform((p) => {
      const normal = path.posix.normalize(p.replaceAll("\\", "/"));
      return normal.length > 1 && normal.endsWith("/") ? normal.slice(0, -1) : normal;
    })
    .refine((p) => !p.startsWith("/") && !/^[A-Za-z]:/.test(p), `a ${what} inside the workspace, not an absolute one`)
    .refine((p) => p !== ".." && !p.startsWith("../"), `a ${what} inside the workspace (it may not climb out with ..)`);
}

/** A folder inside the workspace, relative to it ("." is the workspace itself), normalised. */
export const FolderPathSchema = relativePathSchema("folder");

/** A file's path inside the workspace, normalised. */
export const ProjectPathSchema = relativePathSchema("path").refine((p) => p !== ".", "a file's path, not the workspace's folder");

export function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/** The workspace's real path; a readable error when it is missing. */
export async function realWorkspace(workspace: string): Promise<string> {
  try {
    return await realpath(workspace);
  } catch {
    throw new PathRefused(".", `The workspace ${workspace} does not exist (the server creates it at start; see PARLEY_WORKSPACE).`);
  }
}

export interface ResolvedPath {
  /** The real workspace folder. */
  root: string;
  /** The real path (for a path that does not exist yet: its nearest existing parent's real path, plus the rest). */
  real: string;
  /** The path relative to the workspace, as the tool was given it. */
  rel: string;
  exists: boolean;
}

const outside = (rel: string) => new PathRefused(rel, `\`${rel}\` is outside the workspace: tools work only inside it.`);

/** Checks a relative path before anything is resolved: no NUL, not absolute, not climbing out. */
export function checkRelative(rel: string): string {
  if (rel.includes("\0")) throw new PathRefused(rel.replaceAll("\0", "\\0"), "A path may not contain a NUL character.");
  if (path.isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel)) throw new PathRefused(rel, `\`${rel}\` is an absolute path: tools take paths relative to the workspace, and work only inside it.`);
  const normal = path.posix.normalize(rel.replaceAll("\\", "/"));
  if (normal === ".." || normal.startsWith("../")) throw outside(rel);
  return normal;
}

/**
 * Resolves `rel` (relative to the workspace) to its real path and refuses it unless that is inside
 * the workspace. A dangling symlink is refused: what it would create is not known to be inside.
 */
export async function resolveInside(workspace: string, rel: string): Promise<ResolvedPath> {
  const normal = checkRelative(rel);
  const root = await realWorkspace(workspace);
  let existing = path.resolve(root, normal);
  const rest: string[] = [];
  let real: string;
  for (;;) {
    try {
      real = path.join(await realpath(existing), ...rest);
      break;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== "ENOENT" && code !== "ENOTDIR") throw err;
      const link = await lstat(existing).then(
        (s) => s.isSymbolicLink(),
        () => false,
      );
      if (link) throw new PathRefused(rel, `\`${rel}\` goes through a symbolic link whose target does not exist: refused, as it may lead outside the workspace.`);
      rest.unshift(path.basename(existing));
      existing = path.dirname(existing);
    }
  }
  if (!isInside(root, real)) throw outside(rel);
  return { root, real, rel: normal, exists: rest.length === 0 };
}

/** The path as the person reads it: relative to the workspace. */
export function relativeTo(root: string, real: string): string {
  return path.relative(root, real).split(path.sep).join("/") || ".";
}

/**
 * After opening: where the open file really is (Linux: /proc/self/fd), refused unless inside the
 * workspace. Closes the gap between resolving a path and opening it, where a folder could be
 * swapped for a symlink. Elsewhere (no /proc) the resolution just before opening stands.
 */
export async function confirmOpenedInside(fd: number, root: string, rel: string): Promise<void> {
  let where: string;
  try {
    where = await readlink(`/proc/self/fd/${fd}`);
  } catch {
    return;
  }
  if (!isInside(root, where)) throw outside(rel);
}
