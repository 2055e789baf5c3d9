import { ToolDenied, defineAgentFunction, type ToolOptions } from "../runtime";

/**
 * Test functions for teams (PARLEY_TEST_FUNCTIONS=1): an approval that names who may answer it,
 * how many of them must allow it, and who else may after a while. Questions that name their
 * answerers go through `test.ask` (its input is passed to `rt.ask` whole).
 */
export const teamTool = defineAgentFunction({
  name: "test.team-tool",
  description: "Test: asks approval for the tool call in its input ({ tool, input, answerers?, approvals?, escalate? }); runs a stand-in when allowed.",
  async run(rt, input) {
    const { tool, input: toolInput, ...audience } = (input ?? {}) as { tool: string; input: unknown } & Pick<ToolOptions, "answerers" | "approvals" | "escalate">;
    try {
      await rt.tool(tool, toolInput as never, () => ({ ran: "nothing (test stand-in)" }), audience);
      rt.say("Allowed.");
      return { outcome: "allowed" };
    } catch (err) {
      if (err instanceof ToolDenied) return { outcome: err.reason, feedback: err.feedback ?? null };
      throw err;
    }
  },
});
