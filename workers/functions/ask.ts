import { ASK_FUNCTION, AskInputSchema, askSpecOf } from "../../lib/protocol/asks";
import { AskTimeout, UserDeclined, defineAgentFunction } from "../runtime";

/**
 * An ask from outside Parley (the ask API, MCP, `parley ask`): one question, shown as `from`'s,
 * and the run ends with how it was settled. The question itself is what the asker reads back.
 */
export const ask = defineAgentFunction({
  name: ASK_FUNCTION,
  command: false,
  description: "A question an agent or script outside Parley asks through it (the ask API, MCP, parley ask); it returns the person's answer.",
  async run(rt, input) {
    const asked = AskInputSchema.parse(input);
    const timeoutMs = asked.timeout_seconds === undefined ? null : asked.timeout_seconds * 1000;
    const audience = { ...(asked.answerers && { answerers: asked.answerers }), ...(asked.escalate && { escalate: asked.escalate }) };
    if (asked.form) {
      const result = await rt.form(asked.question, asked.form, { timeoutMs, owner: asked.from, ...audience });
      if (result.action === "accept") return { outcome: "answered", value: result.content };
      return result.action === "decline" ? { outcome: "declined", feedback: result.feedback ?? null } : { outcome: "timed_out" };
    }
    const spec = askSpecOf(asked);
    try {
      const value = await rt.ask(spec.prompt, {
        options: spec.options,
        multi: spec.multi,
        allowCustom: spec.allowCustom,
        timeoutMs,
        owner: asked.from,
        ...(asked.default === undefined ? {} : { default: asked.default }),
        ...audience,
      });
      return { outcome: "answered", value };
    } catch (err) {
      if (err instanceof UserDeclined) return { outcome: "declined", feedback: err.feedback };
      if (err instanceof AskTimeout) return { outcome: "timed_out" };
      throw err;
    }
  },
});
