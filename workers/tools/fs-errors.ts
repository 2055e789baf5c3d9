import { ToolFailure } from "./define";
import { PathRefused } from "./workspace-paths";

/** A filesystem error as a sentence about the path the tool was given (no real path of the host in it). */
export function fsFailure(err: unknown, rel: string): Error {
  if (err instanceof ToolFailure || err instanceof PathRefused) return err;
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new ToolFailure(`\`${rel}\` does not exist.`);
    case "EISDIR":
      return new ToolFailure(`\`${rel}\` is a folder, not a file.`);
    case "ENOTDIR":
      return new ToolFailure(`\`${rel}\`: a part of this path is a file, not a folder.`);
    case "ELOOP":
      return new PathRefused(rel, `\`${rel}\` became a symbolic link after it was checked: refused.`);
    case "EACCES":
    case "EPERM":
      return new ToolFailure(`\`${rel}\`: permission denied.`);
    case "ENOSPC":
      return new ToolFailure(`\`${rel}\`: no space left on the disk.`);
    default:
      // Another error of the system (ENAMETOOLONG, EROFS …): its kind, without the host's real path.
      if (typeof code === "string" && err instanceof Error) return new ToolFailure(`\`${rel}\`: ${err.message.split(",")[0]}.`);
      return err instanceof Error ? err : new Error(String(err));
  }
}

/** Binary, as most tools judge it: a NUL byte in the first 8 KB. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, 8_192).includes(0);
}
