import { APPROVAL_FUNCTION, ApprovalAskInputSchema } from "../../lib/protocol/asks";
import { ToolDenied, defineAgentFunction } from "../runtime";
import { externalTool, subjectKindOf } from "../tools/external-tool";

/**
 * An approval an agent outside Parley asks for (MCP's `request_approval`, Claude Code's
 * permission prompt): an ordinary approval card for a tool of the asker's, decided first by the
 * permission rules, with "Allow always" adding a session rule. The asker reads how it was settled
 * from the question itself; nothing runs here.
 */
export const approval = defineAgentFunction({
  name: APPROVAL_FUNCTION,
  command: false,
  description: "An approval an agent outside Parley asks for (MCP's request_approval and permission_prompt): allowed once, always, or rejected.",
  async run(rt, input) {
    const asked = ApprovalAskInputSchema.parse(input);
    const tool = externalTool(asked.tool_name, { subjectKind: subjectKindOf(asked.input), preview: asked.preview, editSchema: asked.input_schema, editRoots: asked.roots });
    const timeoutMs = asked.timeout_seconds === undefined ? null : asked.timeout_seconds * 1000;
    try {
      const { answerers, escalate, approvals } = asked;
      let edited: unknown;
      await rt.tool(tool, asked.input, () => null, {
        owner: asked.from,
        timeoutMs,
        onEdited: (input) => (edited = input),
        ...(answerers && { answerers }),
        ...(escalate && { escalate }),
        ...(approvals && { approvals }),
      });
      return edited === undefined ? { outcome: "allowed" } : { outcome: "allowed", input: edited };
    } catch (err) {
      if (err instanceof ToolDenied) return { outcome: "denied", reason: err.message };
      throw err;
    }
  },
});
