import { z } from "zod";
import { normaliseFolder } from "../../lib/permissions/working-folder";
import { AppError, describeZodError } from "../../lib/protocol/errors";
import type { ApprovalEdit, ApprovalSpec } from "../../lib/protocol/permissions";
import { canonicalJson } from "../../lib/protocol/plain-json";
import type { JsonValue } from "../../lib/protocol/question";
import type { EditedCall } from "../../lib/server/questions/approval-edit";
import type { Tool } from "./define";
import { externalTool } from "./external-tool";
import { findTool, tools } from "./index";

const jsonSchemas = new WeakMap<Tool, Record<string, unknown> | null>();

/**
 * A catalogue tool's input as JSON Schema (for the edit form and the server's check), or null when
 * zod cannot say it. Made once per tool: every call of it sends the same one.
 */
export function inputJsonSchema(tool: Tool): Record<string, unknown> | null {
  if (!jsonSchemas.has(tool)) jsonSchemas.set(tool, toJsonSchema(tool));
  return jsonSchemas.get(tool)!;
}

function toJsonSchema(tool: Tool): Record<string, unknown> | null {
  try {
    const { $schema: _draft, ...schema } = z.toJSONSchema(tool.inputSchema, { io: "input" }) as Record<string, unknown>;
    return schema;
  } catch {
    return null;
  }
}

/**
 * What an approval of this call offers to edit: a catalogue tool by its own schema, a tool from
 * outside by the JSON Schema it brought, nothing else (a tool an agent function defines itself: the
 * server could not read an edited call of it). Nothing either when the card shows a shortened input:
 * an edit of it would not be the whole input.
 */
export function approvalEdit(tool: Tool, input: unknown, shown: JsonValue): ApprovalEdit | null {
  if (canonicalJson(shown) !== canonicalJson(input)) return null;
  if (tools.includes(tool)) {
    const schema = inputJsonSchema(tool);
    return schema ? { schema, reader: "catalogue" } : null;
  }
  return tool.editSchema ? { schema: tool.editSchema, reader: "outside", ...(tool.editRoots && { roots: [...tool.editRoots] }) } : null;
}

/**
 * An edited call read again as the worker will run it: the tool's own check of the input (its
 * normalised form), its subject and folder, for the server's rules (lib/server/questions/approval-edit.ts).
 */
export function readEditedCall(approval: ApprovalSpec, input: Record<string, unknown>): EditedCall {
  const tool = approval.edit?.reader === "catalogue" ? findTool(approval.tool) : externalTool(approval.tool, { subjectKind: approval.subjectKind });
  if (!tool) throw new AppError("invalid_edit", `${approval.tool} is not a tool of this server's catalogue: allow the call as it is or reject it.`);
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) throw new AppError("invalid_edit", `The edited input does not fit ${tool.name}'s input: ${describeZodError(parsed.error)}`);
  const value = parsed.data as Record<string, unknown>;
  return { input: value, subject: tool.subject(value), cwd: tool.workingFolder ? normaliseFolder(tool.workingFolder(value)) : null };
}
