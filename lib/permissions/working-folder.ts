/**
 * A working folder as rules and approvals compare it: relative to the workspace, normalised
 * (`./src/` is `src`, `src/../lib` is `lib`), `.` for the workspace's top folder and when absent.
 * No node:path: the settings panel reads these too.
 */
export function normaliseFolder(folder: string | null | undefined): string {
  const text = (folder ?? "").trim().replaceAll("\\", "/");
  const absolute = text.startsWith("/");
  const parts: string[] = [];
  for (const part of text.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts.at(-1) !== "..") parts.pop();
    else if (part !== ".." || !absolute) parts.push(part);
  }
  const joined = parts.join("/");
  return absolute ? `/${joined}` : joined || ".";
}

/** How a folder reads in a rule's label: "in the workspace's top folder", "in `src`". */
export const folderWords = (folder: string) => (folder === "." ? "in the workspace's top folder" : `in \`${folder}\``);
