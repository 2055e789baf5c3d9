import type { PermissionRule, ToolInfo } from "../../protocol/permissions";

/** What no tool that takes a path may touch, whatever other rules say: a repository's internals (hooks run code) and environment files (secrets). Deny rules ignore case. */
export const BUILTIN_PATH_DENIALS = ["**/.git/**", "**/.env*"] as const;

/** Parley's own rules, applied before the project's: for every path tool of the catalogue, deny BUILTIN_PATH_DENIALS. Not removable. */
export function builtinRules(tools: readonly ToolInfo[]): PermissionRule[] {
  return tools
    .filter((t) => t.subjectKind === "path")
    .flatMap((t) => BUILTIN_PATH_DENIALS.map((pattern) => ({ tool: t.name, pattern, decision: "deny" as const })))
    .map((r, i) => ({ ...r, id: `builtin:${i}`, sessionId: null, source: "builtin" as const, createdAt: null, unknownTool: false, cwd: null, subjectKind: "path" as const }));
}
