import { z } from "zod";
import { commandText, exactCommandPattern, wideCommandPattern } from "../../lib/permissions/command-allow";
import { widerWords } from "../../lib/permissions/command-risks";
import { shellWords } from "../../lib/permissions/shell-words";
import { canonicalJson } from "../../lib/protocol/plain-json";
import { MAX_PATTERN_CHARS, MAX_PREVIEW_CHARS, type SubjectKind, type ToolPreview } from "../../lib/protocol/permissions";
import { clip, type AlwaysOptionInput, type Tool } from "./define";
import { escapePattern } from "./patterns";
import { fileDiff } from "./write-file";

/**
 * A tool that lives outside Parley: one an agent elsewhere asks approval for (MCP's
 * `request_approval`, Claude Code's permission prompt) or an MCP server's tool Parley's agent
 * uses. Parley cannot check it or run it; its approval is an ordinary one, so the permission rules
 * decide first and "Allow always" adds a session rule. What rules match depends on `subjectKind`:
 * a command matches its `command`, a path its `file_path` (or `path`), text the call's JSON.
 */
export function externalTool(
  name: string,
  {
    subjectKind,
    description,
    preview,
    editSchema,
    editRoots,
  }: { subjectKind: SubjectKind; description?: string; preview?: string; editSchema?: Record<string, unknown>; editRoots?: readonly string[] },
): Tool {
  const subject = (input: Record<string, unknown>) => subjectOf(input, subjectKind);
  return {
    name,
    ...(editSchema && { editSchema }),
    ...(editRoots?.length && { editRoots }),
    description: description ?? `${name}, a tool outside Parley`,
    dangerous: true,
    subjectKind,
    inputSchema: z.record(z.string(), z.unknown()),
    subject,
    preview: (input: Record<string, unknown>): ToolPreview => (preview !== undefined ? { type: "text", text: clip(preview, MAX_PREVIEW_CHARS) } : previewOf(input, subjectKind)),
    alwaysOptions: (input: Record<string, unknown>) => alwaysOptionsOf(name, subject(input), subjectKind),
    prompt: (input: Record<string, unknown>) => promptOf(name, subject(input), subjectKind),
    run: async () => {
      throw new Error(`${name} runs outside Parley: bring its implementation.`);
    },
  };
}

const COMMAND_FIELDS = ["command"];
const PATH_FIELDS = ["file_path", "path", "notebook_path"];

const stringField = (input: Record<string, unknown>, keys: readonly string[]): string | undefined => {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string" && value.trim() !== "") return value;
  }
  return undefined;
};

/** How rules read a call of a tool from outside, from the fields it has (an input, or a tool's input schema's properties). */
export function subjectKindOf(fields: Record<string, unknown>): SubjectKind {
  if (COMMAND_FIELDS.some((key) => key in fields)) return "command";
  if (PATH_FIELDS.some((key) => key in fields)) return "path";
  return "text";
}

function subjectOf(input: Record<string, unknown>, kind: SubjectKind): string {
  const named = kind === "command" ? stringField(input, COMMAND_FIELDS) : kind === "path" ? stringField(input, PATH_FIELDS) : undefined;
  return named ?? clip(canonicalJson(input), MAX_PREVIEW_CHARS);
}

function previewOf(input: Record<string, unknown>, kind: SubjectKind): ToolPreview {
  const command = kind === "command" ? stringField(input, COMMAND_FIELDS) : undefined;
  if (command !== undefined) return { type: "command", command: clip(command, MAX_PREVIEW_CHARS) };
  const path = kind === "path" ? stringField(input, PATH_FIELDS) : undefined;
  if (path !== undefined && typeof input.new_string === "string")
    return { type: "diff", path: clip(path, 1_000), diff: fileDiff(path, typeof input.old_string === "string" ? input.old_string : "", input.new_string) };
  if (path !== undefined && typeof input.content === "string") return { type: "diff", path: clip(path, 1_000), diff: fileDiff(path, undefined, input.content) };
  return { type: "text", text: clip(JSON.stringify(input, null, 2), MAX_PREVIEW_CHARS) };
}

/** Exactly this call; then every call of the tool (a command: its words with any further arguments, when safe to widen). */
function alwaysOptionsOf(name: string, subject: string, kind: SubjectKind): AlwaysOptionInput[] {
  const every: AlwaysOptionInput = { pattern: "*", label: `every call of ${name}` };
  if (kind === "command") {
    const exact = exactCommandPattern(subject);
    if (exact.length > MAX_PATTERN_CHARS) return [];
    const parsed = shellWords(subject.trim());
    const wider = parsed.ok ? widerWords(parsed.words) : null;
    const pattern = wider && wideCommandPattern(wider);
    const exactly = { pattern: exact, label: `\`${clip(subject.trim(), 120)}\` exactly` };
    // A command allow rule never spans every command (`*` is no command): the widest is words then ` *`.
    return pattern && pattern.length <= MAX_PATTERN_CHARS ? [exactly, { pattern, label: `\`${commandText(wider)}\` with any further arguments` }] : [exactly];
  }
  const exact = escapePattern(subject);
  if (exact.length > MAX_PATTERN_CHARS) return [every];
  return [{ pattern: exact, label: kind === "path" ? `\`${clip(subject, 120)}\` exactly` : "exactly this input" }, every];
}

function promptOf(name: string, subject: string, kind: SubjectKind): string {
  const one = clip(subject.replace(/\s+/g, " "), 200);
  if (kind === "command") return `Run \`${one}\`?`;
  if (kind === "path") return `Use ${name} on ${one}?`;
  return `Use ${name}?`;
}
