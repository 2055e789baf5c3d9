import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open, rename, stat, unlink } from "node:fs/promises";
import path from "node:path";
import type { JsonValue } from "../../lib/protocol/question";
import { ToolFailure } from "./define";
import { fsFailure, looksBinary } from "./fs-errors";
import { confirmOpenedInside, resolveInside } from "./workspace-paths";

/** The largest file write_file and edit_file write or diff (characters). */
export const MAX_FILE_CHARS = 1_000_000;

/** A file's current state as write_file and edit_file see it before asking. */
export type CurrentFile = { kind: "missing" } | { kind: "text"; content: string; hash: string } | { kind: "binary" | "too_big"; bytes: number; hash: string };

export const hashOf = (bytes: Uint8Array | string) => createHash("sha256").update(bytes).digest("hex");

/** Reads the file at `rel` (resolved inside the workspace) as it is now. */
export async function currentFile(workspace: string, rel: string): Promise<CurrentFile> {
  const { real, root, exists } = await resolveInside(workspace, rel);
  if (!exists) return { kind: "missing" };
  try {
    const file = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    try {
      await confirmOpenedInside(file.fd, root, rel);
      const s = await file.stat();
      if (s.isDirectory()) throw new ToolFailure(`\`${rel}\` is a folder, not a file.`);
      if (!s.isFile()) throw new ToolFailure(`\`${rel}\` is not a regular file.`);
      if (s.size > MAX_FILE_CHARS * 4) return { kind: "too_big", bytes: s.size, hash: `size:${s.size}:${s.mtimeMs}` };
      const bytes = await file.readFile();
      if (looksBinary(bytes)) return { kind: "binary", bytes: bytes.length, hash: hashOf(bytes) };
      const content = new TextDecoder("utf-8").decode(bytes);
      if (content.length > MAX_FILE_CHARS) return { kind: "too_big", bytes: bytes.length, hash: hashOf(bytes) };
      return { kind: "text", content, hash: hashOf(bytes) };
    } finally {
      await file.close();
    }
  } catch (err) {
    throw fsFailure(err, rel);
  }
}

/** What a write's approval stands on: the file's kind and hash when the card was shown (its stamp, journaled). */
export function fileStamp(file: CurrentFile): JsonValue {
  return file.kind === "missing" ? { kind: "missing" } : { kind: file.kind, hash: file.hash };
}

/** Refuses to act on a file that is not as it was when the approval was asked (`approved`: its stamp). */
export function sameAsApproved(rel: string, approved: JsonValue | undefined, now: CurrentFile): void {
  if (approved === undefined) return;
  if (JSON.stringify(approved) !== JSON.stringify(fileStamp(now))) {
    throw new ToolFailure(`\`${rel}\` changed after the approval was asked (the person approved a change to what it was then): nothing was written. Read it again and ask anew.`);
  }
}

/**
 * Writes `content` to `rel` atomically: a temporary file beside it, renamed over it, the folders
 * made first. The path is resolved again after the folders are made and right before the rename;
 * an existing file keeps its mode.
 */
export async function writeAtomically(workspace: string, rel: string, content: string): Promise<{ created: boolean; bytes: number }> {
  let temp: string | null = null;
  try {
    const first = await resolveInside(workspace, rel);
    if (!first.exists) {
      await mkdir(path.dirname(first.real), { recursive: true });
    }
    const target = await resolveInside(workspace, rel);
    const before = target.exists ? await stat(target.real) : null;
    if (before?.isDirectory()) throw new ToolFailure(`\`${rel}\` is a folder, not a file.`);
    const dir = path.dirname(target.real);
    temp = path.join(dir, `.${path.basename(target.real)}.${randomBytes(6).toString("hex")}.parley-tmp`);
    const data = Buffer.from(content, "utf-8");
    const file = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, before ? before.mode & 0o7777 : 0o644);
    try {
      await confirmOpenedInside(file.fd, target.root, rel);
      await file.writeFile(data);
      if (before) await file.chmod(before.mode & 0o7777);
      await file.sync();
    } finally {
      await file.close();
    }
    const last = await resolveInside(workspace, rel);
    if (last.real !== target.real) throw new ToolFailure(`\`${rel}\` changed while it was being written: nothing was written.`);
    await rename(temp, last.real);
    temp = null;
    return { created: !before, bytes: data.length };
  } catch (err) {
    throw fsFailure(err, rel);
  } finally {
    if (temp) await unlink(temp).catch(() => {});
  }
}

/** Lines of a text, as an editor counts them. */
export function lineCount(text: string): number {
  return text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}
