import { jsonSchema, tool, type ToolSet } from "ai";
import { z } from "zod";
import { tools as catalogue } from "../tools";

/** The arguments of the `clarify` tool: a question for the person, answered on a card. */
export const ClarifyInputSchema = z.strictObject({
  question: z.string().trim().min(1).max(500),
  options: z.array(z.string().trim().min(1).max(200)).max(12).default([]),
  multi: z.boolean().default(false),
  allowFreeText: z.boolean().default(true),
});
export type ClarifyInput = z.output<typeof ClarifyInputSchema>;

const CLARIFY_DESCRIPTION =
  "Asks the user a clarifying question when a request is ambiguous. Give options when the answer is one of a few choices; " +
  "multi=true lets them pick several; allowFreeText lets them type their own answer. Returns their answer as text.";

/**
 * What the model is offered: the tool catalogue (workers/tools) and, when somebody can answer,
 * `clarify`. No `execute`: the loop runs each call itself, through `rt.tool` / `rt.ask`, so that
 * approvals and the journal apply. The schemas are plain JSON Schema: the runtime checks inputs
 * and a bad one goes back to the model as the call's result.
 */
export function modelTools({ canAsk }: { canAsk: boolean }): ToolSet {
  const set: ToolSet = {};
  for (const t of catalogue) {
    set[t.name] = tool({ description: t.description, inputSchema: jsonSchema(z.toJSONSchema(t.inputSchema, { io: "input" }) as never) });
  }
  if (canAsk) set.clarify = tool({ description: CLARIFY_DESCRIPTION, inputSchema: jsonSchema(z.toJSONSchema(ClarifyInputSchema, { io: "input" }) as never) });
  return set;
}
